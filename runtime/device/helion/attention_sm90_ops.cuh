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
// MN-major, as v's rows are). d += A * B when scaleD != 0. One asm statement for
// every N (helion/wgmma_asm.cuh).
#include "helion/wgmma_asm.cuh"
#define HELION_WGMMA_RS(SHAPE, TY, C, C1, C2, C3, C4, C5, C6)                                      \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" #C5 ", 0;\n"                                 \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " {"                        \
               HELION_WGMMA_ACC_PTX(C) "}, {%" #C ", %" #C1 ", %" #C2 ", %" #C3 "}, %" #C4         \
               ", p, 1, 1, %" #C6 ";\n}\n"                                                         \
               : HELION_WGMMA_ACC(C)                                                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(scaleD), "n"(TransB)  \
               : "memory")

/// d[64 x N] (+)= A[64 x 16] (registers) * B[16 x N] (shared memory; MN-major when
/// TransB, else K-major).
template <int N, class T, int TransB = 1>
__device__ __forceinline__ void wgmma_m64k16_rs(float (&d)[N / 2], const uint32 (&a)[4],
                                                uint64 descB, int scaleD) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k16_rs: N must be 16, 32, 64, 96, 128, 192 or 256");
  static_assert(is_same_v<T, bf16> || is_same_v<T, f16>, "wgmma_m64k16_rs: bf16 or f16 inputs");
  if constexpr (is_same_v<T, bf16>) {
    HELION_WGMMA_DISPATCH(HELION_WGMMA_RS, "k16", "bf16");
  } else {
    HELION_WGMMA_DISPATCH(HELION_WGMMA_RS, "k16", "f16");
  }
}

#undef HELION_WGMMA_RS
#define HELION_WGMMA_ASM_END
#include "helion/wgmma_asm.cuh"

} // namespace sm90
#endif

} // namespace helion::dev
