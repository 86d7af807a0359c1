//===- MatmulConfig.cpp - A recognized matmul's config, checked and mapped ===//
//
// After the pattern (MatmulPlan.cpp), the config. Its keys map to the device
// library's template parameters as follows (docs/gemm.md):
//
//   block_sizes of tm, tn, tk  -> BM, BN, BK (tk must be 64: one 128-byte swizzle row of
//                                 16-bit elements; the kernels' BK is that row in the
//                                 operand type: 64 bf16/f16, 32 f32, 128 f8e4m3/f8e5m2)
//   num_warps 8 / 12           -> 1 / 2 consumer warpgroups (+ 1 producer) (sm90)
//   num_stages                 -> Stages of the TMA / cp.async ring
//   pid_type persistent_*      -> Persistent (flat, xyz: one CTA per tile)
//   l2_groupings[0]            -> groupM (1 = plain row-major tile order)
//   indexing all tensor_descriptor -> the sm90 kernel (TMA + wgmma), with the
//                                 sm80 kernel as the fallback; otherwise sm80 only
//
// Example: the default config of a large matmul, block_sizes [128, 256, 64],
// num_warps 12, num_stages 4, persistent_interleaved, l2_groupings [8] ->
// hd::Gemm<T, T_out, 128, 256, 64, 4, 2, false, true, tma_store>.
//===----------------------------------------------------------------------===//
#include "MatmulPlanner.h"

#include "helion/Config/BlockSizes.h"

#include <string>

namespace helion::codegen::matmul {
namespace {

constexpr int kMaxSmem = 227 * 1024;

/// The block size of tile `t` as apply-config chose it, and its config path
/// ("block_sizes[2] (tk)"; fixed sizes are not in the config).
std::pair<int64_t, std::string> blockSizeOf(const Kernel& k, int t) {
  const BlockSizeDecl& d = k.blockSizes.at(k.tiles.at(t).blockSize);
  if (d.configIndex < 0)
    return {d.chosen.value_or(1), "the block size fixed by the source"};
  return {d.chosen.value_or(1),
          "block_sizes[" + std::to_string(d.configIndex) + "] (" + k.tiles[t].name + ")"};
}

} // namespace

bool Planner::mapConfig() {
  auto [bm, bmKey] = blockSizeOf(k_, p_.tileM);
  auto [bn, bnKey] = blockSizeOf(k_, p_.tileN);
  auto [bk, bkKey] = blockSizeOf(k_, p_.tileK);
  bool ok = true;
  if (batched()) {
    auto [bb, bbKey] = blockSizeOf(k_, p_.tileB);
    if (bb != 1)
      ok = configError(bbKey + " (the batch tile) must be 1 for a batched tensor-core matmul, "
                               "got " + std::to_string(bb) +
                       "; fix it in the source: hl::block_size({1, hl::tunable, hl::tunable})");
  }
  if (bk != 64)
    ok = configError(bkKey + " must be 64 for a tensor-core matmul (one 128-byte swizzle row "
                             "of 16-bit elements; the kernels take one such row per k-block "
                             "whatever the dtype: 32 f32 or 128 8-bit elements), got " +
                     std::to_string(bk));
  p_.gemm.sm90 = !c_.indexing.empty();
  for (config::Indexing ix : c_.indexing)
    p_.gemm.sm90 = p_.gemm.sm90 && ix == config::Indexing::TensorDescriptor;
  p_.gemm.bm = static_cast<int>(bm);
  p_.gemm.bn = static_cast<int>(bn);
  p_.gemm.stages = c_.numStages;
  // The sm80 kernel runs one CTA per tile: pid_type (and num_warps) are the sm90
  // kernel's only, and a config without it must not differ in them.
  p_.gemm.persistent = p_.gemm.sm90 && (c_.pidType == config::PidType::PersistentBlocked ||
                              c_.pidType == config::PidType::PersistentInterleaved);
  p_.gemm.groupM = c_.l2Groupings.empty() ? 1 : std::max(1, c_.l2Groupings[0]);
  if (grouped()) { // no l2_groupings key (the grid loop has one tile): GROUP_M 8 per group
    p_.gemm.persistent = true;
    p_.gemm.groupM = 8;
  }
  if (c_.numStages < 2)
    ok = configError("num_stages must be at least 2 for a tensor-core matmul, got " +
                     std::to_string(c_.numStages));
  const int64_t maxBn = p_.bTransposed ? 256 : 256, minBn = p_.bTransposed ? 16 : 64;
  if (bn < minBn || bn > maxBn)
    ok = configError(bnKey + " must be in [" + std::to_string(minBn) + ", " +
                     std::to_string(maxBn) + "] for a tensor-core matmul, got " +
                     std::to_string(bn));
  if (p_.gemm.sm90) {
    if (c_.numWarps != 8 && c_.numWarps != 12)
      ok = configError("num_warps must be 8 or 12 for the sm90 matmul (4 x (1 producer + 1 or 2 "
                       "consumer warpgroups)), got " + std::to_string(c_.numWarps));
    p_.gemm.consumers = c_.numWarps == 8 ? 1 : 2;
    if (bm % (64 * p_.gemm.consumers) != 0)
      ok = configError(bmKey + " must be a multiple of 64 x " + std::to_string(p_.gemm.consumers) +
                       " consumer warpgroups (num_warps " + std::to_string(c_.numWarps) +
                       "), got " + std::to_string(bm));
    else if (bm / p_.gemm.consumers / 64 * bn / 2 > 128)
      ok = configError("block sizes " + std::to_string(bm) + " x " + std::to_string(bn) +
                       " need " + std::to_string(bm / p_.gemm.consumers / 64 * bn / 2) +
                       " accumulator registers per thread with num_warps " +
                       std::to_string(c_.numWarps) + "; at most 128 fit");
    // The ring plus the smallest tma_store slice (f32 output in 4 slices).
    int64_t ring = 1024 + p_.gemm.stages * (bm + bn) * 128 + 16 * p_.gemm.stages;
    if (ring + bm * bn * 4 / 4 > kMaxSmem)
      ok = configError("num_stages " + std::to_string(p_.gemm.stages) + " with " +
                       std::to_string(bm) + " x " + std::to_string(bn) + " tiles needs " +
                       std::to_string(ring + bm * bn) +
                       " bytes of shared memory, over the 227 KB of a CTA");
  }
  // The sm80 kernel: 8 warps in a 2 x 4 grid, warp tiles multiples of 16 x 16.
  p_.gemm.sm80Bm = static_cast<int>(std::min<int64_t>(bm, 256));
  p_.gemm.sm80Bn = static_cast<int>(std::max<int64_t>(64, bn));
  p_.gemm.sm80Stages = p_.gemm.stages;
  while (p_.gemm.sm80Stages > 2 && 128 + p_.gemm.sm80Stages * (p_.gemm.sm80Bm + p_.gemm.sm80Bn) * 128 > kMaxSmem)
    --p_.gemm.sm80Stages;
  if (!p_.gemm.sm90) {
    if (bm < 32 || bm > 256 || bn % 64 != 0)
      ok = configError("the sm80 matmul (indexing pointer/block_ptr) needs " + bmKey +
                       " in [32, 256] and " + bnKey + " a multiple of 64, got " +
                       std::to_string(bm) + " x " + std::to_string(bn));
    else if (p_.gemm.sm80Stages != p_.gemm.stages)
      ok = configError("num_stages " + std::to_string(p_.gemm.stages) + " of " + std::to_string(bm) +
                       " x " + std::to_string(bn) + " tiles is over the 227 KB of shared "
                       "memory of the sm80 matmul; at most " + std::to_string(p_.gemm.sm80Stages));
  }
  return ok;
}

} // namespace helion::codegen::matmul
