// helion/gemm_fp8.cuh: the 8-bit-float pieces of both GEMMs (included by gemm_sm80.cuh,
// and so by gemm_sm90.cuh), for A and B both f8e4m3 or both f8e5m2 (torch.float8_e4m3fn /
// float8_e5m2), B given as [N, K] (K-major, like A):
//   sm90::wgmma_m64k32_f8   wgmma.mma_async m64nNk32, f32 accumulators, A and B from
//                           shared memory through descriptors. PTX allows the 8-bit types
//                           only K-major (no imm-trans operands). A 128-byte swizzle row
//                           holds 128 of them, so a k32 step adds 32 bytes to the
//                           descriptors' start, as a k16 step of 16-bit elements does.
//                           The accumulator layout is WgmmaAcc's.
//   f8x4_to_f16x2           sm_80 has no 8-bit mma: the fragments are widened to f16 in
//                           registers (bit shuffles, exact) for mma.sync m16n8k16.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// Whether T is one of the 8-bit floats the tensor cores read (sm_89+ / sm_90a wgmma).
template <class T>
inline constexpr bool is_float8_v = is_same_v<T, f8e4m3> || is_same_v<T, f8e5m2>;

/// The four 8-bit floats of `x` (bytes b0..b3, T = f8e4m3 or f8e5m2) as two f16x2
/// words, lo = {b0, b1} and hi = {b2, b3}, exactly. e5m2 is the upper byte of an f16.
/// e4m3 (bias 7) shifted into an f16 (bias 15) reads 2^-8 of its value, subnormals
/// included: the f16 then holds v / 256 and a product of two v / 65536, which the
/// caller undoes on the f32 sum (f8ProductScale). The e4m3 NaN (S.1111.111) becomes
/// 1.875 * 2^-8 (480 after the scale): NaN inputs do not propagate on this path.
/// Plain integer code, so the host tests (Float8Test.cpp) run it too.
template <class T> __device__ __forceinline__ void f8x4_to_f16x2(uint32 x, uint32& lo, uint32& hi) {
  lo = ((x & 0xFFu) << 8) | ((x & 0xFF00u) << 16); // [0, b0, 0, b1]: the f16s' high bytes
  hi = ((x >> 8) & 0xFF00u) | (x & 0xFF000000u);   // [0, b2, 0, b3]
  if constexpr (is_same_v<T, f8e4m3>) {
    lo = (lo & 0x80008000u) | ((lo & 0x7F007F00u) >> 1); // 4 exponent bits into 5
    hi = (hi & 0x80008000u) | ((hi & 0x7F007F00u) >> 1);
  }
}

/// What f8x4_to_f16x2 leaves on a product of two T: the f32 sum is multiplied by it.
template <class T> inline constexpr float f8ProductScale = is_same_v<T, f8e4m3> ? 65536.f : 1.f;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {

// d[64 x N] (+)= A[64 x 32] * B[32 x N]; scale-d from a register (0: overwrite),
// imm-scale-a = imm-scale-b = 1. The register lists are spelled out: PTX has no ranges.
#define HELION_WGMMA_F8_N16(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %10, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, %8, %9, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_N32(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, %16, %17, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_N64(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, %32, %33, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_N96(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %50, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, %48, %49, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_N128(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
               "}, %64, %65, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_N192(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %98, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
               "}, %96, %97, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
                 "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
                 "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
                 "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
                 "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_N256(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k32.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
               "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
               "}, %128, %129, p, 1, 1;\n}\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
                 "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
                 "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
                 "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
                 "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
                 "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
                 "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
                 "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
                 "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
               : "l"(descA), "l"(descB), "r"(scaleD) \
               : "memory")

#define HELION_WGMMA_F8_DISPATCH(TY)                                                             \
  if constexpr (N == 16)                                                                         \
    HELION_WGMMA_F8_N16(TY);                                                                     \
  else if constexpr (N == 32)                                                                    \
    HELION_WGMMA_F8_N32(TY);                                                                     \
  else if constexpr (N == 64)                                                                    \
    HELION_WGMMA_F8_N64(TY);                                                                     \
  else if constexpr (N == 96)                                                                    \
    HELION_WGMMA_F8_N96(TY);                                                                     \
  else if constexpr (N == 128)                                                                   \
    HELION_WGMMA_F8_N128(TY);                                                                    \
  else if constexpr (N == 192)                                                                   \
    HELION_WGMMA_F8_N192(TY);                                                                    \
  else                                                                                           \
    HELION_WGMMA_F8_N256(TY)

/// d[64 x N] (+)= A[64 x 32] * B[32 x N], A and B K-major 8-bit floats of type T
/// (f8e4m3 or f8e5m2); see WgmmaAcc for d's layout.
template <int N, class T>
__device__ __forceinline__ void wgmma_m64k32_f8(float (&d)[N / 2], uint64 descA, uint64 descB,
                                                int scaleD) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k32_f8: N must be 16, 32, 64, 96, 128, 192 or 256");
  static_assert(is_float8_v<T>, "wgmma_m64k32_f8: f8e4m3 or f8e5m2 inputs");
  if constexpr (is_same_v<T, f8e4m3>) {
    HELION_WGMMA_F8_DISPATCH("e4m3");
  } else {
    HELION_WGMMA_F8_DISPATCH("e5m2");
  }
}

#undef HELION_WGMMA_F8_N16
#undef HELION_WGMMA_F8_N32
#undef HELION_WGMMA_F8_N64
#undef HELION_WGMMA_F8_N96
#undef HELION_WGMMA_F8_N128
#undef HELION_WGMMA_F8_N192
#undef HELION_WGMMA_F8_N256
#undef HELION_WGMMA_F8_DISPATCH

} // namespace sm90
#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
