// helion/grouped_rows_wgmma.cuh: the sm90 instructions of the row-fitting grouped GEMM
// (gemm_grouped_rows.cuh): wgmma with the tile's rows as N (any multiple of 8 up to
// 256) and B[g]'s k-block as a transposed A, and stmatrix .trans for the transposed
// store of the accumulator.
#pragma once
#include "helion/gemm_sm90.cuh" // the sm90 pipeline, types

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {

// The accumulator lists of the N that wgmma_asm.cuh does not spell (multiples of
// 8 up to 256: C = N / 2 f32 registers).
#include "helion/wgmma_asm.cuh"
// clang-format off
#define HELION_WGMMA_REGS4(F, X) F(0) X(1) X(2) X(3)
#define HELION_WGMMA_REGS12(F, X)                                                                  \
  HELION_WGMMA_REGS8(F, X) X(8) X(9) X(10) X(11)
#define HELION_WGMMA_REGS20(F, X)                                                                  \
  HELION_WGMMA_REGS16(F, X) X(16) X(17) X(18) X(19)
#define HELION_WGMMA_REGS24(F, X)                                                                  \
  HELION_WGMMA_REGS20(F, X) X(20) X(21) X(22) X(23)
#define HELION_WGMMA_REGS28(F, X)                                                                  \
  HELION_WGMMA_REGS24(F, X) X(24) X(25) X(26) X(27)
#define HELION_WGMMA_REGS36(F, X)                                                                  \
  HELION_WGMMA_REGS32(F, X) X(32) X(33) X(34) X(35)
#define HELION_WGMMA_REGS40(F, X)                                                                  \
  HELION_WGMMA_REGS36(F, X) X(36) X(37) X(38) X(39)
#define HELION_WGMMA_REGS44(F, X)                                                                  \
  HELION_WGMMA_REGS40(F, X) X(40) X(41) X(42) X(43)
#define HELION_WGMMA_REGS52(F, X)                                                                  \
  HELION_WGMMA_REGS48(F, X) X(48) X(49) X(50) X(51)
#define HELION_WGMMA_REGS56(F, X)                                                                  \
  HELION_WGMMA_REGS52(F, X) X(52) X(53) X(54) X(55)
#define HELION_WGMMA_REGS60(F, X)                                                                  \
  HELION_WGMMA_REGS56(F, X) X(56) X(57) X(58) X(59)
#define HELION_WGMMA_REGS68(F, X)                                                                  \
  HELION_WGMMA_REGS64(F, X) X(64) X(65) X(66) X(67)
#define HELION_WGMMA_REGS72(F, X)                                                                  \
  HELION_WGMMA_REGS68(F, X) X(68) X(69) X(70) X(71)
#define HELION_WGMMA_REGS76(F, X)                                                                  \
  HELION_WGMMA_REGS72(F, X) X(72) X(73) X(74) X(75)
#define HELION_WGMMA_REGS80(F, X)                                                                  \
  HELION_WGMMA_REGS76(F, X) X(76) X(77) X(78) X(79)
#define HELION_WGMMA_REGS84(F, X)                                                                  \
  HELION_WGMMA_REGS80(F, X) X(80) X(81) X(82) X(83)
#define HELION_WGMMA_REGS88(F, X)                                                                  \
  HELION_WGMMA_REGS84(F, X) X(84) X(85) X(86) X(87)
#define HELION_WGMMA_REGS92(F, X)                                                                  \
  HELION_WGMMA_REGS88(F, X) X(88) X(89) X(90) X(91)
#define HELION_WGMMA_REGS100(F, X)                                                                 \
  HELION_WGMMA_REGS96(F, X) X(96) X(97) X(98) X(99)
#define HELION_WGMMA_REGS104(F, X)                                                                 \
  HELION_WGMMA_REGS100(F, X) X(100) X(101) X(102) X(103)
#define HELION_WGMMA_REGS108(F, X)                                                                 \
  HELION_WGMMA_REGS104(F, X) X(104) X(105) X(106) X(107)
#define HELION_WGMMA_REGS112(F, X)                                                                 \
  HELION_WGMMA_REGS108(F, X) X(108) X(109) X(110) X(111)
#define HELION_WGMMA_REGS116(F, X)                                                                 \
  HELION_WGMMA_REGS112(F, X) X(112) X(113) X(114) X(115)
#define HELION_WGMMA_REGS120(F, X)                                                                 \
  HELION_WGMMA_REGS116(F, X) X(116) X(117) X(118) X(119)
#define HELION_WGMMA_REGS124(F, X)                                                                 \
  HELION_WGMMA_REGS120(F, X) X(120) X(121) X(122) X(123)
// clang-format on

// wgmma m64nNk16 with A N-major from shared memory (imm-trans-a 1) and B K-major
// (imm-trans-b 0), d = the first N / 2 registers of a float[128].
#define HELION_WGMMA_TA(SHAPE, TY, C, C1, C2)                                                    \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" #C2 ", 0;\n"                               \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " {"                      \
               HELION_WGMMA_ACC_PTX(C) "}, %" #C ", %" #C1 ", p, 1, 1, 1, 0;\n}\n"               \
               : HELION_WGMMA_ACC(C)                                                             \
               : "l"(descA), "l"(descB), "r"(scaleD)                                             \
               : "memory")
#define HELION_WGMMA_TA_N(N, C, C1, C2, TY)                                                      \
  if constexpr (H == N)                                                                          \
  HELION_WGMMA_TA("m64n" #N "k16", TY, C, C1, C2)

template <int H, class T>
__device__ __forceinline__ void wgmma_ta(float (&d)[128], uint64 descA, uint64 descB, int scaleD) {
  static_assert(H % 8 == 0 && H >= 8 && H <= 256, "wgmma_ta: N a multiple of 8 up to 256");
  static_assert(is_same_v<T, bf16> || is_same_v<T, f16>, "wgmma_ta: bf16 or f16 inputs");
#define HELION_WGMMA_TA_ALL(TY)                                                                    \
  HELION_WGMMA_TA_N(8, 4, 5, 6, TY); HELION_WGMMA_TA_N(16, 8, 9, 10, TY);                         \
  HELION_WGMMA_TA_N(24, 12, 13, 14, TY); HELION_WGMMA_TA_N(32, 16, 17, 18, TY);                   \
  HELION_WGMMA_TA_N(40, 20, 21, 22, TY); HELION_WGMMA_TA_N(48, 24, 25, 26, TY);                   \
  HELION_WGMMA_TA_N(56, 28, 29, 30, TY); HELION_WGMMA_TA_N(64, 32, 33, 34, TY);                   \
  HELION_WGMMA_TA_N(72, 36, 37, 38, TY); HELION_WGMMA_TA_N(80, 40, 41, 42, TY);                   \
  HELION_WGMMA_TA_N(88, 44, 45, 46, TY); HELION_WGMMA_TA_N(96, 48, 49, 50, TY);                   \
  HELION_WGMMA_TA_N(104, 52, 53, 54, TY); HELION_WGMMA_TA_N(112, 56, 57, 58, TY);                 \
  HELION_WGMMA_TA_N(120, 60, 61, 62, TY); HELION_WGMMA_TA_N(128, 64, 65, 66, TY);                 \
  HELION_WGMMA_TA_N(136, 68, 69, 70, TY); HELION_WGMMA_TA_N(144, 72, 73, 74, TY);                 \
  HELION_WGMMA_TA_N(152, 76, 77, 78, TY); HELION_WGMMA_TA_N(160, 80, 81, 82, TY);                 \
  HELION_WGMMA_TA_N(168, 84, 85, 86, TY); HELION_WGMMA_TA_N(176, 88, 89, 90, TY);                 \
  HELION_WGMMA_TA_N(184, 92, 93, 94, TY); HELION_WGMMA_TA_N(192, 96, 97, 98, TY);                 \
  HELION_WGMMA_TA_N(200, 100, 101, 102, TY); HELION_WGMMA_TA_N(208, 104, 105, 106, TY);           \
  HELION_WGMMA_TA_N(216, 108, 109, 110, TY); HELION_WGMMA_TA_N(224, 112, 113, 114, TY);           \
  HELION_WGMMA_TA_N(232, 116, 117, 118, TY); HELION_WGMMA_TA_N(240, 120, 121, 122, TY);           \
  HELION_WGMMA_TA_N(248, 124, 125, 126, TY); HELION_WGMMA_TA_N(256, 128, 129, 130, TY);
  if constexpr (is_same_v<T, bf16>) {
    HELION_WGMMA_TA_ALL("bf16");
  } else {
    HELION_WGMMA_TA_ALL("f16");
  }
#undef HELION_WGMMA_TA_ALL
}

#undef HELION_WGMMA_TA_N
#undef HELION_WGMMA_TA
#undef HELION_WGMMA_REGS4
#undef HELION_WGMMA_REGS12
#undef HELION_WGMMA_REGS20
#undef HELION_WGMMA_REGS24
#undef HELION_WGMMA_REGS28
#undef HELION_WGMMA_REGS36
#undef HELION_WGMMA_REGS40
#undef HELION_WGMMA_REGS44
#undef HELION_WGMMA_REGS52
#undef HELION_WGMMA_REGS56
#undef HELION_WGMMA_REGS60
#undef HELION_WGMMA_REGS68
#undef HELION_WGMMA_REGS72
#undef HELION_WGMMA_REGS76
#undef HELION_WGMMA_REGS80
#undef HELION_WGMMA_REGS84
#undef HELION_WGMMA_REGS88
#undef HELION_WGMMA_REGS92
#undef HELION_WGMMA_REGS100
#undef HELION_WGMMA_REGS104
#undef HELION_WGMMA_REGS108
#undef HELION_WGMMA_REGS112
#undef HELION_WGMMA_REGS116
#undef HELION_WGMMA_REGS120
#undef HELION_WGMMA_REGS124
#define HELION_WGMMA_ASM_END
#include "helion/wgmma_asm.cuh"

/// stmatrix .trans: lane l's r[i] (row l / 4, columns 2 (l % 4) .. +1 of matrix i)
/// lands in row 2 (l % 4) .. +1, column l / 4 of the stored 8 x 8 matrix; lanes 8i ..
/// 8i + 7 give the addresses of matrix i's stored rows.
__device__ __forceinline__ void stmatrix_x4_trans(uint32 addr, uint32 r0, uint32 r1, uint32 r2,
                                                  uint32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

} // namespace sm90
#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
