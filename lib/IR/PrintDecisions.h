//===- PrintDecisions.h - Printers of the passes' decisions -----*- C++ -*-===//
//
// One-line forms of what the config passes store in the IR that needs no names
// from the kernel (Printer.cpp prints the rest): a dot's mma layout, the launch, a
// template's parameters. Private to lib/IR.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <string>

namespace helion::ir {

/// `mma(a copied, b owners, stages 3)`
std::string printMmaDot(const MmaDotInfo& m);
/// `threads 128, vector_bytes 16, num_sm_multiplier 1[, maxnreg 64]`
std::string printLaunch(const Launch& l);
/// `gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8; sm80 128x256 stages 4`
std::string printGemmParams(const GemmParams& p);
/// `attention sm90 128x128 consumers 2 stages 2 persistent; sm80 128x64 warps 4 mt 2`
std::string printAttentionParams(const AttentionParams& p);
/// `a %x, b %y, acc %acc.0, tiles [tm, tn], k loop tk, epilogue 1, single store %out`
std::string printMatmulMatch(const Kernel& k, const MatmulMatch& m);
/// `q %q, k %k, v %v, acc %acc.2, sum %li.1, max %mi.0, tiles [tb, tm], key loop tn,
/// head dim %d, score <expr>, epilogue 1`
std::string printAttentionMatch(const Kernel& k, const AttentionMatch& m);
/// `a %x, b1 %w1, b2 %w2, tiles [tm, tn], hidden th, k loop tk, act maximum(...), ...`
std::string printChainMatch(const Kernel& k, const ChainMatch& m);
/// `chain sm90 128x64 consumers 2 dv <= 256 stages 3/3/3, 3/3/2, 2/2/0` (stages per dk
/// 64, 128, 256 and, within each, per dv 64/128/256)
std::string printChainParams(const ChainParams& p);

} // namespace helion::ir
