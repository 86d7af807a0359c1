// helion/attention_sm90_ops.cuh: the sm_90a instructions of attention_sm90.cuh
// beyond gemm_sm90_pipeline.cuh's: named-barrier arrive, operand fences, and wgmma
// m64nNk16 with A from registers (the P of P V, the general dot's register A) and B
// through a descriptor. Pair packing and ex2.approx are math.cuh's (pack2_rn,
// ex2_approx), shared with the sm80 attention and the sm90 epilogue.
#pragma once
#include "helion/gemm_sm90_pipeline.cuh"
#include "helion/math.cuh" // pack2_rn, ex2_approx
#include "helion/types.cuh"

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {

/// bar.arrive on named barrier `id` (counts toward `threads`, does not wait).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void fence_operand(uint32& r) { asm volatile("" : "+r"(r)::"memory"); }


// wgmma.mma_async m64nNk16 with A from registers (the m16n8k16 A fragment of
// each warp: a[0..3]) and B through a descriptor; imm-trans-b = TransB (1: B is
// MN-major, as v's rows are). d += A * B when scaleD != 0. The register lists are
// spelled out: PTX has no ranges.
#define HELION_RS_ACC8(b)                                                                        \
  "+f"(d[(b) + 0]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]),      \
      "+f"(d[(b) + 5]), "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
#define HELION_RS_ACC16(b) HELION_RS_ACC8(b), HELION_RS_ACC8((b) + 8)
#define HELION_RS_ACC32(b) HELION_RS_ACC16(b), HELION_RS_ACC16((b) + 16)
#define HELION_RS_ACC48(b) HELION_RS_ACC32(b), HELION_RS_ACC16((b) + 32)
#define HELION_RS_ACC64(b) HELION_RS_ACC32(b), HELION_RS_ACC32((b) + 32)
#define HELION_RS_ACC96(b) HELION_RS_ACC64(b), HELION_RS_ACC32((b) + 64)
#define HELION_RS_ACC128(b) HELION_RS_ACC64(b), HELION_RS_ACC64((b) + 64)
#define HELION_WGMMA_RS_N16(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %13, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, {%8, %9, %10, %11}, %12, p, 1, 1, %14;\n}\n" \
               : HELION_RS_ACC8(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_N32(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %21, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, {%16, %17, %18, %19}, %20, p, 1, 1, %22;\n}\n" \
               : HELION_RS_ACC16(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_N64(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n" \
               : HELION_RS_ACC32(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_N96(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %53, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, {%48, %49, %50, %51}, %52, p, 1, 1, %54;\n}\n" \
               : HELION_RS_ACC48(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_N128(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %69, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
               "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n" \
               : HELION_RS_ACC64(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_N192(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %101, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
               "}, {%96, %97, %98, %99}, %100, p, 1, 1, %102;\n}\n" \
               : HELION_RS_ACC96(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_N256(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %133, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
               "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
               "}, {%128, %129, %130, %131}, %132, p, 1, 1, %134;\n}\n" \
               : HELION_RS_ACC128(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), \
                 "n"(TransB) \
               : "memory")
#define HELION_WGMMA_RS_DISPATCH(TY) \
  if constexpr (N == 16) \
    HELION_WGMMA_RS_N16(TY); \
  else if constexpr (N == 32) \
    HELION_WGMMA_RS_N32(TY); \
  else if constexpr (N == 64) \
    HELION_WGMMA_RS_N64(TY); \
  else if constexpr (N == 96) \
    HELION_WGMMA_RS_N96(TY); \
  else if constexpr (N == 128) \
    HELION_WGMMA_RS_N128(TY); \
  else if constexpr (N == 192) \
    HELION_WGMMA_RS_N192(TY); \
  else \
    HELION_WGMMA_RS_N256(TY)

/// d[64 x N] (+)= A[64 x 16] (registers) * B[16 x N] (shared memory; MN-major when
/// TransB, else K-major).
template <int N, class T, int TransB = 1>
__device__ __forceinline__ void wgmma_m64k16_rs(float (&d)[N / 2], const uint32 (&a)[4],
                                                uint64 descB, int scaleD) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k16_rs: N must be 16, 32, 64, 96, 128, 192 or 256");
  static_assert(is_same_v<T, bf16> || is_same_v<T, f16>, "wgmma_m64k16_rs: bf16 or f16 inputs");
  if constexpr (is_same_v<T, bf16>) {
    HELION_WGMMA_RS_DISPATCH("bf16");
  } else {
    HELION_WGMMA_RS_DISPATCH("f16");
  }
}

#undef HELION_WGMMA_RS_DISPATCH
#undef HELION_WGMMA_RS_N16
#undef HELION_WGMMA_RS_N32
#undef HELION_WGMMA_RS_N64
#undef HELION_WGMMA_RS_N96
#undef HELION_WGMMA_RS_N128
#undef HELION_WGMMA_RS_N192
#undef HELION_WGMMA_RS_N256
#undef HELION_RS_ACC8
#undef HELION_RS_ACC16
#undef HELION_RS_ACC32
#undef HELION_RS_ACC48
#undef HELION_RS_ACC64
#undef HELION_RS_ACC96
#undef HELION_RS_ACC128

} // namespace sm90
#endif

} // namespace helion::dev
