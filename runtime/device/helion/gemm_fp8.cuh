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
// imm-scale-a = imm-scale-b = 1. One asm statement for every N (helion/wgmma_asm.cuh).
#include "helion/wgmma_asm.cuh"
#define HELION_WGMMA_F8(SHAPE, TY, C, C1, C2, ...)                                                 \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" #C2 ", 0;\n"                                 \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " {"                        \
               HELION_WGMMA_ACC_PTX(C) "}, %" #C ", %" #C1 ", p, 1, 1;\n}\n"                       \
               : HELION_WGMMA_ACC(C)                                                               \
               : "l"(descA), "l"(descB), "r"(scaleD)                                               \
               : "memory")

/// d[64 x N] (+)= A[64 x 32] * B[32 x N], A and B K-major 8-bit floats of type T
/// (f8e4m3 or f8e5m2); see WgmmaAcc for d's layout.
template <int N, class T>
__device__ __forceinline__ void wgmma_m64k32_f8(float (&d)[N / 2], uint64 descA, uint64 descB,
                                                int scaleD) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k32_f8: N must be 16, 32, 64, 96, 128, 192 or 256");
  static_assert(is_float8_v<T>, "wgmma_m64k32_f8: f8e4m3 or f8e5m2 inputs");
  if constexpr (is_same_v<T, f8e4m3>) {
    HELION_WGMMA_DISPATCH(HELION_WGMMA_F8, "k32", "e4m3");
  } else {
    HELION_WGMMA_DISPATCH(HELION_WGMMA_F8, "k32", "e5m2");
  }
}

#undef HELION_WGMMA_F8
#define HELION_WGMMA_ASM_END
#include "helion/wgmma_asm.cuh"

} // namespace sm90
#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
