//===- AttentionRules.cpp - The configs flash attention takes --------------===//
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
#include "helion/Config/AttentionSmem.h"
#include "helion/Config/TemplateRules.h"

#include <fmt/format.h>

#include <algorithm>

namespace helion::config {
namespace {

constexpr int64_t kSmem = 227 * 1024;

template <class T> T pick(const std::vector<T>& v, std::mt19937_64& rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

} // namespace

std::optional<AttentionRules> AttentionRules::of(const ir::Kernel& kernel) {
  ir::TemplateTiles t = ir::templateTiles(kernel);
  if (t.family != ir::DotTemplate::Attention || t.m < 0 || t.n < 0)
    return std::nullopt;
  return AttentionRules(kernel, std::move(t));
}

int64_t AttentionRules::headDim() const {
  return t_.headDim && t_.headDim->kind == ir::ExprKind::Const
             ? static_cast<int64_t>(t_.headDim->value)
             : 128;
}

RuleLines AttentionRules::describe() {
  return {"flash attention (batched hl::dot) restrictions:",
          "indexing                all tensor_descriptor: the sm90 kernel (TMA + wgmma, "
          "sm_90a; the sm80 one off Hopper); else pointer or block_ptr: the sm80 kernel "
          "(cp.async + ldmatrix + mma.sync on sm_80 and sm_90)",
          "block_sizes             sm80: tm 16 or 32 rows per warp (64 or 128 with 4 warps, "
          "128 or 256 with 8), tn 32, 64 or 128; sm90: tm 64 per consumer warpgroup (64, "
          "128, or 192 with 16 warps), tn 64 or 128",
          "num_warps               sm80: 4 or 8; sm90: 8, 12 or 16 (1 producer + 1 to 3 "
          "consumer warpgroups)",
          "num_stages              sm80: 2 (FlashAttention-2's schedule); sm90: 2 to 4 K/V "
          "stages within 227 KB of shared memory at the head dim (128 when not a constant)",
          "pid_type                flat or xyz (one CTA per batch and row block), or "
          "persistent_interleaved (sm90: min(tiles, #SMs) CTAs looping over the tiles; sm80: "
          "as flat)",
          "head dim                64 or 128 (hl::specialize), bf16 or f16 q, k, v"};
}

void AttentionRules::defaults(const ConfigSpec& spec, Config& c) const {
  // AttentionSm90<T, d, 128, 2, 2>: TMA + wgmma, 2 consumer warpgroups x 64 query
  // rows, 128 keys per block, 2 K/V stages, persistent (one CTA per SM looping
  // over the tiles); AttentionSm80<T, d, 64, 4, 2> off Hopper. H100
  // (docs/attention.md): 552 TFLOP/s at d = 128 and 373 at d = 64 (the same
  // kernel one CTA per tile: 544 and 350); 3 consumers ([192, 128], 16 warps)
  // reach 408 at d = 64 but spill at d = 128, and one config serves both.
  setTileDefault(*k_, spec, c, t_.m, 128);
  setTileDefault(*k_, spec, c, t_.n, 128);
  c.numWarps = 12;
  c.numStages = 2;
  c.pidType = PidType::PersistentInterleaved;
  c.l2Groupings.assign(spec.l2Loops.size(), 1);
  c.indexing.assign(spec.numSites, Indexing::TensorDescriptor);
}

void AttentionRules::draw(std::mt19937_64& rng, Config& c) const {
  const bool sm90 = pick(std::vector<bool>{false, true}, rng);
  c.numWarps = sm90 ? pick(std::vector<int>{8, 12, 16}, rng) : pick(std::vector<int>{4, 8}, rng);
  // 3 consumers (16 warps): 192 rows of Q leave room for 2 stages at head dim 128.
  c.numStages = sm90 && c.numWarps < 16 ? pick(std::vector<int>{2, 3}, rng) : 2;
  const RuleTile rows = ruleTile(*k_, c, t_.m), keys = ruleTile(*k_, c, t_.n);
  if (rows.configIndex >= 0 && rows.known)
    c.blockSizes[rows.configIndex] = sm90 ? 64 * (c.numWarps / 4 - 1)
                                          : pick(std::vector<int64_t>{16, 32}, rng) * c.numWarps;
  if (keys.configIndex >= 0 && keys.known)
    c.blockSizes[keys.configIndex] = sm90 ? pick(std::vector<int64_t>{64, 128}, rng)
                                          : pick(std::vector<int64_t>{32, 64, 128}, rng);
  c.pidType = sm90 ? pick(std::vector<PidType>{PidType::Flat, PidType::Xyz,
                                               PidType::PersistentInterleaved},
                          rng)
                   : pick(std::vector<PidType>{PidType::Flat, PidType::Xyz}, rng);
  std::fill(c.indexing.begin(), c.indexing.end(),
            sm90 ? Indexing::TensorDescriptor : Indexing::Pointer);
}

int AttentionRules::rowsConfigIndex(const Config& c) const {
  const RuleTile rows = ruleTile(*k_, c, t_.m);
  return rows.known ? rows.configIndex : -1;
}

void AttentionRules::setConsumers(Config& c, int warps) const {
  c.numWarps = warps;
  if (!allTensorDescriptors(c))
    return;
  if (const int i = rowsConfigIndex(c); i >= 0)
    c.blockSizes[static_cast<size_t>(i)] = 64 * (warps / 4 - 1);
  if (warps == 16)
    c.numStages = std::min(c.numStages, 2);
}

void AttentionRules::canonicalize(Config& c, const Config& d) {
  const bool sm90 = allTensorDescriptors(c, /*canonical=*/true);
  if (c.pidType == PidType::Xyz)
    c.pidType = PidType::Flat;
  if (!sm90)
    c.pidType = d.pidType;
}

std::vector<ConfigError> AttentionRules::check(const Config& c, ir::AttentionParams* out) const {
  std::vector<ConfigError> errs;
  auto add = [&](std::string key, int index, std::string rule) {
    errs.push_back({std::move(key), index, -1, std::move(rule)});
  };
  const RuleTile rows = ruleTile(*k_, c, t_.m), keys = ruleTile(*k_, c, t_.n);
  const auto tma = std::count(c.indexing.begin(), c.indexing.end(), Indexing::TensorDescriptor);
  const bool sm90 = tma > 0 && tma == static_cast<std::ptrdiff_t>(c.indexing.size());
  if (tma > 0 && !sm90)
    add("indexing", -1,
        "expected tensor_descriptor on every load and store (the sm90 kernel) or on none "
        "(cp.async) for flash attention, got a mix");
  ir::AttentionParams p;
  if (sm90) {
    // AttentionSm90<T, d, BN, Consumers, Stages>: num_warps = 4 x (1 + Consumers), 64
    // query rows per consumer, the K / V ring within 227 KB at the head dim.
    const bool warpsOk = c.numWarps == 8 || c.numWarps == 12 || c.numWarps == 16;
    const int consumers = c.numWarps / 4 - 1;
    if (!warpsOk)
      add("num_warps", -1,
          fmt::format("expected 8, 12 or 16 for the sm90 flash attention (1 producer and 1 to 3 "
                      "consumer warpgroups), got {}",
                      c.numWarps));
    const bool stagesOk = c.numStages >= 2 && c.numStages <= 4;
    if (!stagesOk)
      add("num_stages", -1,
          fmt::format("expected 2, 3 or 4 for the sm90 flash attention (the TMA ring of K and V "
                      "blocks), got {}",
                      c.numStages));
    if (rows.known && warpsOk && rows.size != 64 * consumers)
      errs.push_back(rows.error(
          fmt::format("expected {} rows of {} for the sm90 flash attention with num_warps {} "
                      "(64 per consumer warpgroup), got {}",
                      64 * consumers, rows.quoted(), c.numWarps, rows.size)));
    const int64_t bn = keys.size, d = headDim();
    if (keys.known && bn != 64 && bn != 128) {
      errs.push_back(keys.error(fmt::format(
          "expected 64 or 128 keys of {} for the sm90 flash attention, got {}", keys.quoted(), bn)));
    } else if (keys.known && warpsOk && stagesOk &&
               attentionSm90SmemBytes(d, bn, consumers, c.numStages) > kSmem) {
      int most = 1;
      while (attentionSm90SmemBytes(d, bn, consumers, most + 1) <= kSmem)
        ++most;
      add("num_stages", -1,
          fmt::format("expected at most {} for the sm90 flash attention with num_warps {} and {} "
                      "keys per block ({} bytes of shared memory at head dim {}, over {})",
                      most, c.numWarps, bn, attentionSm90SmemBytes(d, bn, consumers, c.numStages),
                      d, kSmem));
    }
    p.sm90 = true;
    p.sm90Bm = static_cast<int>(rows.size);
    p.sm90Bn = static_cast<int>(bn);
    p.consumers = consumers;
    p.stages = c.numStages;
    p.persistent = c.pidType == PidType::PersistentInterleaved;
    // The fallback off Hopper: AttentionSm80's default (bm 128, bn 64, 4 warps x 2).
  } else {
    const bool warpsOk = c.numWarps == 4 || c.numWarps == 8;
    if (!warpsOk)
      add("num_warps", -1, fmt::format("expected 4 or 8 for flash attention, got {}", c.numWarps));
    if (c.numStages != 2)
      add("num_stages", -1,
          fmt::format("expected 2 for flash attention (FlashAttention-2's K and V schedule), "
                      "got {}",
                      c.numStages));
    if (rows.known && warpsOk && rows.size != 16 * c.numWarps && rows.size != 32 * c.numWarps)
      errs.push_back(rows.error(fmt::format("expected {} or {} rows of {} for flash attention "
                                            "with num_warps {} (16 or 32 per warp), got {}",
                                            16 * c.numWarps, 32 * c.numWarps, rows.quoted(),
                                            c.numWarps, rows.size)));
    if (keys.known && keys.size != 32 && keys.size != 64 && keys.size != 128)
      errs.push_back(keys.error(fmt::format(
          "expected 32, 64 or 128 keys of {} for flash attention, got {}", keys.quoted(),
          keys.size)));
    p.bm = static_cast<int>(rows.size);
    p.bn = static_cast<int>(keys.size);
    p.warps = c.numWarps;
    p.mt = warpsOk ? static_cast<int>(rows.size / (16 * c.numWarps)) : 1;
  }
  // persistent_interleaved: the sm90 kernel loops over tiles; the sm80 one (a config of
  // its own or the fallback off Hopper) runs one CTA per tile anyway.
  if (c.pidType != PidType::Flat && c.pidType != PidType::Xyz &&
      c.pidType != PidType::PersistentInterleaved)
    add("pid_type", -1,
        fmt::format("expected 'flat', 'xyz' or 'persistent_interleaved' for flash attention, "
                    "got '{}'",
                    pidTypeName(c.pidType)));
  for (size_t i = 0; i < c.l2Groupings.size(); ++i)
    if (c.l2Groupings[i] != 1)
      add("l2_groupings", static_cast<int>(i),
          fmt::format("expected 1 for flash attention (CTAs run b-major), got {}",
                      c.l2Groupings[i]));
  if (errs.empty() && out)
    *out = p;
  return errs;
}

} // namespace helion::config
