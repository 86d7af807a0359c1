//===- helion/IR/TemplateParams.h - A template's decided parameters -*- C++ -*-===//
//
// The device library's tensor-core templates (runtime/device/helion/gemm_sm90.cuh,
// gemm_sm80.cuh, attention_sm80.cuh, attention_sm90.cuh) take their tiling as template
// parameters. The template-plan pass decides them from the config by the family's
// rules (helion/Config/TemplateRules.h) and stores them in the kernel
// (Kernel::gemm, Kernel::flash); the emitter prints them and the launcher reads them.
//
//   matmul, block_sizes [128, 256, 64], num_warps 12, num_stages 4,
//   persistent_interleaved, l2_groupings [8], indexing all tensor_descriptor:
//     template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8;
//               sm80 128x256 stages 4
//===----------------------------------------------------------------------===//
#pragma once

namespace helion::ir {

/// hd::Gemm (sm90: TMA + wgmma, `consumers` consumer warpgroups and a producer) and
/// hd::GemmSm80 (cp.async + mma.sync, 8 warps; the fallback off Hopper, or the kernel
/// when the config asks for no TMA).
struct GemmParams {
  bool sm90 = true; ///< indexing tensor_descriptor: TMA + wgmma, sm80 the fallback
  int bm = 128, bn = 256, stages = 4, consumers = 2;
  bool persistent = true;
  int groupM = 8;
  int sm80Bm = 128, sm80Bn = 256, sm80Stages = 3; ///< the sm80 kernel (fallback or main)
  /// BN is a multiple of 64: tma_store's 128-byte column boxes (64 16-bit elements)
  /// tile the output tile, so a single store may go through it (else pairs).
  bool tmaStore = true;
  /// A product scaled per K block (MatmulMatch::kScaled): the K tile's block size, the
  /// scales' block, which the K-scale mainloops promote each part at; 0 otherwise.
  int kScaleBlock = 0;
  /// A grouped GEMM whose epilogue is its one store of the accumulator at [tm, tn], of B
  /// as [G, K, N] and without A prologue or K scale: on sm_90a with 16-bit A, B and
  /// output its launcher may run the row-fitting kernel (gemm_grouped_rows.cuh), whose
  /// row tiles fit each group, instead of BM x BN tiles (template-plan decides).
  bool groupedRows = false;
};

/// AttentionSm80<TIn, D, bn, warps, mt> (with sm90: the fallback off Hopper) and, when
/// every indexing entry is tensor_descriptor, AttentionSm90<TIn, D, sm90Bn, consumers,
/// stages> with sm90Bm = 64 x consumers query rows per CTA.
struct AttentionParams {
  int bm = 128, bn = 64, warps = 4, mt = 2; ///< AttentionSm80
  bool sm90 = false;
  int sm90Bm = 128, sm90Bn = 128, consumers = 2, stages = 2;
  bool persistent = false; ///< sm90: pid_type persistent_interleaved, min(tiles, SMs) CTAs
};

/// ChainSm90<TIn, DK, DV, bn, consumers, stages[DK][DV], b1KMajor> (chain_sm90.cuh):
/// the template a kernel with ChainMatch takes on sm_90a when its tiles fit it. DK
/// (the first dot's K) and DV (output columns per tile: the smallest of 64, 128 and
/// 256 that covers N, at most dvMax) are template arguments the launcher gives from
/// the tensors; stages[i][j] is the ring depth for DK = 64 << i and DV = 64 << j,
/// 0 where none fits in shared memory or DV is over dvMax (the generic kernel runs).
struct ChainParams {
  int bm = 128, bn = 64, consumers = 2, dvMax = 256;
  int stages[3][3] = {};
  bool operator==(const ChainParams&) const = default;
};

} // namespace helion::ir
