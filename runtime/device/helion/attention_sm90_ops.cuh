// helion/attention_sm90_ops.cuh: the sm_90a instructions of attention_sm90.cuh
// beyond gemm_sm90_pipeline.cuh's: named-barrier arrive, operand fences, packing two
// floats into a 16-bit pair, ex2.approx, and wgmma m64nNk16 with A from registers
// (the P of P V) and B MN-major through a descriptor.
#pragma once
#include "helion/gemm_sm90_pipeline.cuh"
#include "helion/types.cuh"

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {

/// bar.arrive on named barrier `id` (counts toward `threads`, does not wait).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void fence_operand(uint32& r) { asm volatile("" : "+r"(r)::"memory"); }

/// Two floats as one register of T x 2 (lo in the low half), round to nearest even.
template <class T> __device__ __forceinline__ uint32 pack2_rn(float lo, float hi) {
  uint32 r;
  if constexpr (is_same_v<T, bf16>)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// wgmma.mma_async m64nNk16 with A from registers (the m16n8k16 A fragment of
// each warp: a[0..3]) and B through a descriptor, transposed (tnspB = 1: B is
// MN-major, as v's rows are). d += A * B when scaleD != 0.
#define HELION_RS_ACC8(b)                                                                        \
  "+f"(d[(b) + 0]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]),      \
      "+f"(d[(b) + 5]), "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
#define HELION_RS_ACC16(b) HELION_RS_ACC8(b), HELION_RS_ACC8((b) + 8)
#define HELION_RS_ACC32(b) HELION_RS_ACC16(b), HELION_RS_ACC16((b) + 16)
#define HELION_RS_ACC64(b) HELION_RS_ACC32(b), HELION_RS_ACC32((b) + 32)

#define HELION_WGMMA_RS_N64(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n" \
               : HELION_RS_ACC32(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_RS_N128(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %69, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
               "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n" \
               : HELION_RS_ACC64(0) \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD) \
               : "memory")

/// d[64 x N] (+)= A[64 x 16] (registers) * B[16 x N] (MN-major, shared memory).
template <int N, class T>
__device__ __forceinline__ void wgmma_m64k16_rs(float (&d)[N / 2], const uint32 (&a)[4],
                                                uint64 descB, int scaleD) {
  static_assert(N == 64 || N == 128, "wgmma_m64k16_rs: N must be 64 or 128");
  static_assert(is_same_v<T, bf16> || is_same_v<T, f16>, "wgmma_m64k16_rs: bf16 or f16 inputs");
  if constexpr (N == 64 && is_same_v<T, bf16>)
    HELION_WGMMA_RS_N64("bf16");
  else if constexpr (N == 64)
    HELION_WGMMA_RS_N64("f16");
  else if constexpr (is_same_v<T, bf16>)
    HELION_WGMMA_RS_N128("bf16");
  else
    HELION_WGMMA_RS_N128("f16");
}

#undef HELION_WGMMA_RS_N64
#undef HELION_WGMMA_RS_N128
#undef HELION_RS_ACC8
#undef HELION_RS_ACC16
#undef HELION_RS_ACC32
#undef HELION_RS_ACC64

} // namespace sm90
#endif

} // namespace helion::dev
