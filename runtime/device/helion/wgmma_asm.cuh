// helion/wgmma_asm.cuh: the preprocessor pieces that the wgmma inline asm of
// gemm_sm90_pipeline.cuh (m64nNk16 bf16/f16, A and B through descriptors),
// attention_sm90_ops.cuh (m64nNk16 bf16/f16, A from registers) and gemm_fp8.cuh
// (m64nNk32 e4m3/e5m2) share: the accumulator operands of each N, and the dispatch
// on N. The register lists are spelled out because PTX has no ranges.
//
// Macros only, and no include guard on purpose: a header includes this file
// before its wgmma, which defines them, and again after it with
// HELION_WGMMA_ASM_END defined, which undefines them all (that macro included),
// so that none reaches the code that includes the library:
//
//   #include "helion/wgmma_asm.cuh"
//   #define HELION_WGMMA_FORM(SHAPE, TY, C, C1, C2, C3, C4, C5, C6) asm volatile(...)
//   ... HELION_WGMMA_DISPATCH(HELION_WGMMA_FORM, "k16", "bf16"); ...
//   #undef HELION_WGMMA_FORM
//   #define HELION_WGMMA_ASM_END
//   #include "helion/wgmma_asm.cuh"
//
// A form is one asm statement for any N. It is called with the instruction's shape
// ("m64n128k16"), the input type (TY: "bf16", "e4m3", ...), C = N / 2, the number
// of f32 accumulators of a thread (its operands %0 .. %C-1, HELION_WGMMA_ACC(C) and
// HELION_WGMMA_ACC_PTX(C)), and C1 .. C6 = C + 1 .. C + 6: the operands that follow
// the accumulators are %C, %C1, ... (stringized: "%" #C1).
#ifndef HELION_WGMMA_ASM_END

// HELION_WGMMA_REGS<C>(F, X): F(0) X(1) X(2) ... X(C - 1), for the C of each N.
// clang-format off
#define HELION_WGMMA_REGS8(F, X) F(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define HELION_WGMMA_REGS16(F, X)                                                                  \
  HELION_WGMMA_REGS8(F, X)                                                                         \
  X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define HELION_WGMMA_REGS32(F, X)                                                                  \
  HELION_WGMMA_REGS16(F, X)                                                                        \
  X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)
#define HELION_WGMMA_REGS48(F, X)                                                                  \
  HELION_WGMMA_REGS32(F, X)                                                                        \
  X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47)
#define HELION_WGMMA_REGS64(F, X)                                                                  \
  HELION_WGMMA_REGS48(F, X)                                                                        \
  X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63)
#define HELION_WGMMA_REGS96(F, X)                                                                  \
  HELION_WGMMA_REGS64(F, X)                                                                        \
  X(64) X(65) X(66) X(67) X(68) X(69) X(70) X(71) X(72) X(73) X(74) X(75) X(76) X(77) X(78) X(79)  \
  X(80) X(81) X(82) X(83) X(84) X(85) X(86) X(87) X(88) X(89) X(90) X(91) X(92) X(93) X(94) X(95)
#define HELION_WGMMA_REGS128(F, X)                                                                 \
  HELION_WGMMA_REGS96(F, X)                                                                        \
  X(96) X(97) X(98) X(99) X(100) X(101) X(102) X(103)                                              \
  X(104) X(105) X(106) X(107) X(108) X(109) X(110) X(111)                                          \
  X(112) X(113) X(114) X(115) X(116) X(117) X(118) X(119)                                          \
  X(120) X(121) X(122) X(123) X(124) X(125) X(126) X(127)
// clang-format on

#define HELION_WGMMA_ACC_FIRST(i) "+f"(d[i])
#define HELION_WGMMA_ACC_NEXT(i) , "+f"(d[i])
#define HELION_WGMMA_ACC_PTX_FIRST(i) "%" #i
#define HELION_WGMMA_ACC_PTX_NEXT(i) ", %" #i
/// The asm operands of the accumulators d[0 .. C-1]: "+f"(d[0]), ..., "+f"(d[C-1]).
#define HELION_WGMMA_ACC(C) HELION_WGMMA_REGS##C(HELION_WGMMA_ACC_FIRST, HELION_WGMMA_ACC_NEXT)
/// Their names in the asm text: "%0, %1, ..., %C-1".
#define HELION_WGMMA_ACC_PTX(C)                                                                    \
  HELION_WGMMA_REGS##C(HELION_WGMMA_ACC_PTX_FIRST, HELION_WGMMA_ACC_PTX_NEXT)

/// FORM's asm for the template parameter N (16, 32, 64, 96, 128, 192 or 256; the
/// callers static_assert it), with K the shape's k ("k16", "k32").
#define HELION_WGMMA_DISPATCH(FORM, K, TY)                                                         \
  if constexpr (N == 16)                                                                           \
    FORM("m64n16" K, TY, 8, 9, 10, 11, 12, 13, 14);                                                \
  else if constexpr (N == 32)                                                                      \
    FORM("m64n32" K, TY, 16, 17, 18, 19, 20, 21, 22);                                              \
  else if constexpr (N == 64)                                                                      \
    FORM("m64n64" K, TY, 32, 33, 34, 35, 36, 37, 38);                                              \
  else if constexpr (N == 96)                                                                      \
    FORM("m64n96" K, TY, 48, 49, 50, 51, 52, 53, 54);                                              \
  else if constexpr (N == 128)                                                                     \
    FORM("m64n128" K, TY, 64, 65, 66, 67, 68, 69, 70);                                             \
  else if constexpr (N == 192)                                                                     \
    FORM("m64n192" K, TY, 96, 97, 98, 99, 100, 101, 102);                                          \
  else                                                                                             \
    FORM("m64n256" K, TY, 128, 129, 130, 131, 132, 133, 134)

#else // HELION_WGMMA_ASM_END

#undef HELION_WGMMA_REGS8
#undef HELION_WGMMA_REGS16
#undef HELION_WGMMA_REGS32
#undef HELION_WGMMA_REGS48
#undef HELION_WGMMA_REGS64
#undef HELION_WGMMA_REGS96
#undef HELION_WGMMA_REGS128
#undef HELION_WGMMA_ACC_FIRST
#undef HELION_WGMMA_ACC_NEXT
#undef HELION_WGMMA_ACC_PTX_FIRST
#undef HELION_WGMMA_ACC_PTX_NEXT
#undef HELION_WGMMA_ACC
#undef HELION_WGMMA_ACC_PTX
#undef HELION_WGMMA_DISPATCH
#undef HELION_WGMMA_ASM_END

#endif // HELION_WGMMA_ASM_END
