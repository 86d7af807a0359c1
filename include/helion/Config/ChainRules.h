//===- ChainRules.h - When the chain template takes a kernel ----*- C++ -*-===//
//
// A kernel with two chained dots (ir::ChainMatch) is a generic kernel that also runs
// as the sm_90a chain template (runtime/device/helion/chain_sm90.cuh) where the
// device and the tensors fit it. The block sizes of tm (64 rows per consumer
// warpgroup) and th (the hidden block BN) decide its tiles: 128 where the block size
// is 128 or more, else 64 (tm 16 runs 64-row tiles), and num_stages the ring depth
// (2 to 4, less where shared memory ends). The output columns per tile (DV) are the
// launcher's: the smallest of 64, 128 and 256 that covers N, so that the hidden block
// is computed once per row tile, at most 128 with BN 128 (the consumers' registers:
// DV/2 + BN/2 + BN/4 <= 176 floats). The rest of the config (the tn and tk tiles,
// num_warps, ...) is the generic kernel's, which runs off sm_90 and for tensors the
// template does not take.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/TemplateParams.h"

#include <cstdint>

namespace helion::config {

/// ChainSm90<T, dk, dv, bn, consumers, stages, ...>::kSmemBytes (16-bit T): 1024 bytes
/// of alignment slack, the A tile (64 rows per consumer), the B1 and B2 rings and
/// the mbarriers.
int64_t chainSm90SmemBytes(int64_t dk, int64_t dv, int64_t bn, int64_t consumers, int64_t stages);

/// The template's parameters for the chosen rows and hidden tiles (each 128 when it is
/// 128 or more, else 64) and num_stages.
ir::ChainParams chainParams(int64_t bm, int64_t bn, int numStages);

} // namespace helion::config
