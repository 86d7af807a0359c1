//===- AttentionConfig.cpp - The config of flash attention -----------------===//
//
// AttentionSm80<TIn, D, BN, Warps, MT> (indexing pointer / block_ptr):
//   block_sizes of tm, tn  -> BM (= 16 x MT x Warps), BN (32, 64 or 128)
//   num_warps 4 / 8        -> Warps; MT = BM / (16 x Warps) must be 1 or 2
//   num_stages 2           -> FlashAttention-2's K / V schedule (the only one)
//
// AttentionSm90<TIn, D, BN, Consumers, Stages> (indexing all tensor_descriptor):
//   num_warps 8 / 12 / 16  -> 1 producer + 1, 2 or 3 consumer warpgroups
//   block_sizes of tm, tn  -> BM = 64 x Consumers (192 with 3: the one block size
//                             that need not be a power of two), BN 64 or 128
//   num_stages 2 to 4      -> the K / V ring, within 227 KB of shared memory at
//                             the head dim (128 when it is not a constant)
//
// Both: pid_type flat / xyz (one CTA per (b, BM rows), b-major), l2_groupings 1;
// persistent_interleaved: the sm90 kernel runs min(tiles, SMs) CTAs, CTA c takes
// tiles c, c + grid, ... (the next tile's loads run under this one's last
// products); the sm80 kernel still runs one CTA per tile.
//
// Example: block_sizes [128, 128], num_warps 12, num_stages 2, tensor_descriptor
// -> AttentionSm90<T, d, 128, 2, 2>: 2 consumer warpgroups of 64 query rows,
// 128 keys per block, and AttentionSm80<T, d, 64, 4, 2> as the fallback.
//===----------------------------------------------------------------------===//
#include "AttentionConfig.h"
#include "helion/Config/BlockSizes.h"

#include <algorithm>
#include <string>

namespace helion::codegen {
namespace {

using namespace ir;

class ConfigMapper {
public:
  ConfigMapper(const Kernel& k, const config::Config& c, AttentionPlan& p, DiagnosticEngine& d)
      : k_(k), c_(c), p_(p), d_(d) {}

  bool run() {
    const bool anyTma = std::count(c_.indexing.begin(), c_.indexing.end(),
                                   config::Indexing::TensorDescriptor) > 0;
    const bool allTma = anyTma && std::all_of(c_.indexing.begin(), c_.indexing.end(), [](auto ix) {
                          return ix == config::Indexing::TensorDescriptor;
                        });
    bool ok = common();
    if (anyTma && !allTma)
      ok = error("indexing must be tensor_descriptor on every load and store (the sm90 kernel "
                 "loads q, k and v with TMA) or on none for flash attention, got a mix");
    ok = (allTma ? sm90() : sm80()) && ok;
    return ok;
  }

private:
  const Kernel& k_;
  const config::Config& c_;
  AttentionPlan& p_;
  DiagnosticEngine& d_;

  bool error(const std::string& msg) {
    d_.error(p_.grid->loc, "config: " + msg);
    return false;
  }

  /// The block size of tile `t` as apply-config chose it, and its config key
  /// ("block_sizes[0] (tm)").
  std::pair<int64_t, std::string> blockSizeOf(int t) const {
    const BlockSizeDecl& d = k_.blockSizes.at(k_.tiles.at(t).blockSize);
    if (d.configIndex < 0)
      return {d.chosen.value_or(1),
              "the block size of " + k_.tiles[t].name + " fixed by the source"};
    return {d.chosen.value_or(1),
            "block_sizes[" + std::to_string(d.configIndex) + "] (" + k_.tiles[t].name + ")"};
  }

  bool common() {
    bool ok = true;
    if (c_.pidType == config::PidType::PersistentBlocked)
      ok = error("pid_type must be flat, xyz or persistent_interleaved for flash attention (one "
                 "CTA per (batch, row block), or for the sm90 kernel one per SM taking every "
                 "grid-th tile)");
    for (int g : c_.l2Groupings)
      if (g != 1) {
        ok = error("l2_groupings must be 1 for flash attention (CTAs run b-major)");
        break;
      }
    return ok;
  }

  bool sm80() {
    auto [bm, bmKey] = blockSizeOf(p_.tileM);
    auto [bn, bnKey] = blockSizeOf(p_.tileN);
    bool ok = true;
    if (c_.numWarps != 4 && c_.numWarps != 8)
      ok = error("num_warps must be 4 or 8 for flash attention, got " +
                 std::to_string(c_.numWarps));
    const int64_t rows = 16 * static_cast<int64_t>(c_.numWarps);
    if (bm != rows && bm != 2 * rows)
      ok = error(bmKey + " must be 16 or 32 rows per warp for flash attention (" +
                 std::to_string(rows) + " or " + std::to_string(2 * rows) + " with num_warps " +
                 std::to_string(c_.numWarps) + "), got " + std::to_string(bm));
    if (bn != 32 && bn != 64 && bn != 128)
      ok = error(bnKey + " must be 32, 64 or 128 for flash attention, got " + std::to_string(bn));
    if (c_.numStages != 2)
      ok = error("num_stages must be 2 for flash attention with cp.async (K and V blocks in "
                 "flight as in FlashAttention-2), got " + std::to_string(c_.numStages));
    if (!ok)
      return false;
    p_.flash.bm = static_cast<int>(bm);
    p_.flash.bn = static_cast<int>(bn);
    p_.flash.warps = c_.numWarps;
    p_.flash.mt = static_cast<int>(bm / rows);
    return true;
  }

  bool sm90() {
    auto [bm, bmKey] = blockSizeOf(p_.tileM);
    auto [bn, bnKey] = blockSizeOf(p_.tileN);
    bool ok = true;
    const int consumers = c_.numWarps / 4 - 1;
    if (c_.numWarps != 8 && c_.numWarps != 12 && c_.numWarps != 16)
      ok = error("num_warps must be 8, 12 or 16 for the sm90 flash attention (4 x (1 producer + "
                 "1 to 3 consumer warpgroups)), got " + std::to_string(c_.numWarps));
    else if (bm != 64 * consumers)
      ok = error(bmKey + " must be 64 rows per consumer warpgroup for the sm90 flash attention (" +
                 std::to_string(64 * consumers) + " with num_warps " +
                 std::to_string(c_.numWarps) + "), got " + std::to_string(bm));
    if (bn != 64 && bn != 128)
      ok = error(bnKey + " must be 64 or 128 for the sm90 flash attention, got " +
                 std::to_string(bn));
    if (c_.numStages < 2 || c_.numStages > 4)
      ok = error("num_stages must be 2, 3 or 4 for the sm90 flash attention (K and V blocks in "
                 "the TMA ring), got " + std::to_string(c_.numStages));
    if (!ok)
      return false;
    const int64_t d = p_.headDim && p_.headDim->kind == ExprKind::Const
                          ? static_cast<int64_t>(p_.headDim->value)
                          : 128;
    const int64_t smem = attentionSm90SmemBytes(d, static_cast<int>(bn), consumers, c_.numStages);
    if (smem > 227 * 1024)
      return error("num_stages " + std::to_string(c_.numStages) + " needs " +
                   std::to_string(smem) + " bytes of shared memory for the sm90 flash attention "
                   "with " + bmKey + " " + std::to_string(bm) + ", " + bnKey + " " +
                   std::to_string(bn) + " and head dim " + std::to_string(d) +
                   " (at most 232448)");
    p_.flash.sm90 = true;
    p_.flash.sm90Bm = static_cast<int>(bm);
    p_.flash.sm90Bn = static_cast<int>(bn);
    p_.flash.consumers = consumers;
    p_.flash.stages = c_.numStages;
    p_.flash.persistent = c_.pidType == config::PidType::PersistentInterleaved;
    // The fallback off Hopper: AttentionSm80's default (config/DefaultConfig.cpp).
    p_.flash.bm = 128;
    p_.flash.bn = 64;
    p_.flash.warps = 4;
    p_.flash.mt = 2;
    return true;
  }
};

} // namespace

bool mapAttentionConfig(const Kernel& kernel, const config::Config& config, AttentionPlan& plan,
                        DiagnosticEngine& diags) {
  return ConfigMapper(kernel, config, plan, diags).run();
}

} // namespace helion::codegen
