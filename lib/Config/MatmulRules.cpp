//===- MatmulRules.cpp - The configs the tensor-core matmul takes ----------===//
//
// The config's keys map to the device library's template parameters as follows
// (docs/gemm.md):
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
#include "helion/Config/TemplateRules.h"

#include "helion/Config/BlockSizes.h"
#include "helion/IR/DotShape.h"

#include <fmt/format.h>

#include <algorithm>

namespace helion::config {
namespace {

constexpr int64_t kSmem = 227 * 1024; ///< shared memory of one CTA on sm_90
/// A product scaled per K block: its K tile (the scales' block) is any power of two in
/// this range (32 bytes of 8-bit operands, one wgmma / mma.sync k-step, at least).
constexpr int64_t kMinScaleBlock = 32, kMaxScaleBlock = 1024;

} // namespace

bool allTensorDescriptors(const Config& c) {
  return !c.indexing.empty() && std::all_of(c.indexing.begin(), c.indexing.end(), [](Indexing i) {
    return i == Indexing::TensorDescriptor;
  });
}

bool allTensorDescriptors(Config& c, bool canonical) {
  const bool sm90 = allTensorDescriptors(static_cast<const Config&>(c));
  if (!sm90 && canonical)
    std::fill(c.indexing.begin(), c.indexing.end(), Indexing::Pointer);
  return sm90;
}

void setTileDefault(const ir::Kernel& kernel, const ConfigSpec& spec, Config& c, int tile,
                    int64_t v) {
  if (tile < 0)
    return;
  const int decl = kernel.tiles.at(static_cast<size_t>(tile)).blockSize;
  for (size_t i = 0; i < spec.blockSizes.size() && i < c.blockSizes.size(); ++i)
    if (spec.blockSizes[i].declId == decl)
      c.blockSizes[i] = std::clamp(v, spec.blockSizes[i].min, spec.blockSizes[i].max);
}

std::string RuleTile::quoted() const {
  return "'" + name + "'" + (configIndex < 0 ? " (fixed by the source)" : "");
}

RuleTile ruleTile(const ir::Kernel& kernel, const Config& c, int tile) {
  const ir::TileVar& t = kernel.tiles.at(static_cast<size_t>(tile));
  RuleTile r{t.name, -1, 1, true};
  if (t.isGrid || t.blockSize < 0)
    return r;
  ResolvedBlockSize bs = resolveBlockSize(kernel, c, t.blockSize);
  r.configIndex = bs.configIndex;
  r.size = bs.value;
  r.known = bs.configIndex < 0 || static_cast<size_t>(bs.configIndex) < c.blockSizes.size();
  return r;
}

std::optional<MatmulRules> MatmulRules::of(const ir::Kernel& kernel) {
  ir::TemplateTiles t = ir::templateTiles(kernel);
  if (t.family != ir::DotTemplate::Matmul || t.m < 0 || t.n < 0 || t.k < 0)
    return std::nullopt;
  return MatmulRules(kernel, std::move(t));
}

void MatmulRules::narrow(std::vector<BlockSizeSpec>& blockSizes) const {
  auto range = [&](int tile, int64_t lo, int64_t hi, const char* why = "a tensor-core matmul") {
    if (tile < 0)
      return;
    const int decl = k_->tiles.at(static_cast<size_t>(tile)).blockSize;
    for (BlockSizeSpec& bs : blockSizes) {
      // Within the source's own range when it allows any of these; else left alone
      // for check() to report.
      if (bs.declId != decl || std::max(lo, bs.min) > std::min(hi, bs.max))
        continue;
      bs.min = std::max(lo, bs.min);
      bs.max = std::min(hi, bs.max);
      bs.narrowedFor = why;
    }
  };
  range(t_.b, 1, 1, "the batch tile of a batched tensor-core matmul");
  range(t_.m, 64, 256);
  range(t_.n, t_.bTransposed ? 16 : 64, 256);
  if (t_.kScaled)
    range(t_.k, kMinScaleBlock, kMaxScaleBlock, "the scale block of a product scaled per K block");
  else
    range(t_.k, 64, 64);
}

RuleLines MatmulRules::describe(bool grouped) const {
  RuleLines out{
      "tensor-core matmul (hl::dot) restrictions:",
      "block_sizes             tm: 64, 128 or 256; tn: 64, 128 or 256 (from 16 with B as "
      "[N, K]); tk: 64",
      "                        (tk 64 = one 128-byte shared row of 16-bit elements; the "
      "kernel's K block is that row whatever the dtype: 32 f32, 128 f8e4m3/f8e5m2)",
      "num_warps               8 or 12: 1 or 2 consumer warpgroups + 1 producer (sm90); "
      "the sm80 kernel always runs 8",
      "num_stages              2 or more, as many as fit in 227 KB of shared memory "
      "(128 x 256: at most 4)"};
  if (!grouped && ir::matmulStagedTensor(*k_) >= 0)
    out.push_back("                        (with its A prologue's tensor staged beside A on "
                  "sm90, a third block per stage: the sm90 ring is as deep as fits, at most "
                  "num_stages; 128 x 256: 3)");
  if (grouped)
    out.push_back("pid_type                persistent_interleaved only: a grouped GEMM is "
                  "persistent (grid = #SMs; the tiles per group are known on the device only), "
                  "tiles of each group in groupM 8 order");
  else
    out.push_back("pid_type                persistent_* = persistent GEMM (grid = #SMs); flat, "
                  "xyz = one CTA per tile");
  out.push_back("block_sizes             sm90: tm a multiple of 64 x consumer warpgroups, at "
                "most 128 accumulator registers per thread (tm / consumers / 64 x tn / 2); "
                "sm80: tn a multiple of 64");
  if (t_.kScaled)
    out.push_back("block_sizes             a product scaled per K block: tk is the scales' "
                  "block (a power of two from 32 to 1024, default 128); sm90: at most 64 "
                  "accumulator registers per thread (each K block's part takes as many again), "
                  "num_warps 16 = 3 consumers with tm 192; "
                  "sm80: tiles of at most 128 x 128");
  if (!grouped)
    out.push_back("l2_groupings            groupM of the tile order");
  out.push_back("indexing                tensor_descriptor everywhere = sm90 (TMA + wgmma, "
                "sm80 fallback); pointer / block_ptr = sm80 (cp.async + mma.sync; num_warps "
                "and pid_type have no effect there)");
  return out;
}

void MatmulRules::defaults(const ConfigSpec& spec, Config& c) const {
  setTileDefault(*k_, spec, c, t_.b, 1);
  setTileDefault(*k_, spec, c, t_.m, 128);
  setTileDefault(*k_, spec, c, t_.n, t_.kScaled ? 128 : 256);
  setTileDefault(*k_, spec, c, t_.k, t_.kScaled ? 128 : 64);
  // A product scaled per K block stays at 2 consumers of 128 rows, which alternate two
  // part accumulators: 3 consumers of 192 (num_warps 16, one part each) took 1.10-1.31x
  // its time on the H200 (docs/gemm.md); the tuner may still try them.
  c.numWarps = 12;
  c.numStages = 4;
  c.pidType = PidType::PersistentInterleaved;
  c.l2Groupings.assign(spec.l2Loops.size(), 8);
  c.indexing.assign(spec.numSites, Indexing::TensorDescriptor);
}

int MatmulRules::rowsConfigIndex(const Config& c) const {
  const RuleTile rows = ruleTile(*k_, c, t_.m);
  return rows.known ? rows.configIndex : -1;
}

void MatmulRules::setConsumers(Config& c, int warps) const {
  c.numWarps = warps;
  const int i = rowsConfigIndex(c);
  if (!t_.kScaled || i < 0 || !allTensorDescriptors(c))
    return;
  int64_t& tm = c.blockSizes[static_cast<size_t>(i)];
  if (warps == 16)
    tm = 192;
  else if (tm == 192)
    tm = 128;
}

void MatmulRules::canonicalize(Config& c, const Config& d) {
  const bool sm90 = allTensorDescriptors(c, /*canonical=*/true);
  if (c.pidType == PidType::Xyz)
    c.pidType = PidType::Flat;
  if (c.pidType == PidType::PersistentBlocked)
    c.pidType = PidType::PersistentInterleaved;
  if (!sm90) {
    c.pidType = d.pidType;
    c.numWarps = d.numWarps;
  }
}

std::vector<ConfigError> MatmulRules::check(const Config& c, ir::GemmParams* out,
                                           bool withRanges) const {
  std::vector<ConfigError> errs;
  auto add = [&](std::string key, std::string rule) {
    errs.push_back({std::move(key), -1, -1, std::move(rule)});
  };
  const RuleTile m = ruleTile(*k_, c, t_.m), n = ruleTile(*k_, c, t_.n),
                 k = ruleTile(*k_, c, t_.k);
  const bool tilesKnown = m.known && n.known && k.known;
  const int64_t bm = m.size, bn = n.size, stages = c.numStages;
  ir::GemmParams p;
  p.sm90 = allTensorDescriptors(c);
  p.bm = static_cast<int>(bm);
  p.bn = static_cast<int>(bn);
  p.stages = c.numStages;
  p.tmaStore = bn % 64 == 0;
  // The sm90 shared memory: the ring of `stages` stages of `rows` 128-byte rows each (A
  // and B, and a staged A-shaped tensor) and the smallest tma_store slice (f32 output in
  // 4 slices).
  auto smemOf = [&](int64_t stages, int64_t rows) {
    return 1024 + stages * (rows * 128 + 16) + bm * bn;
  };

  if (p.sm90 && tilesKnown) {
    if (c.numWarps != 8 && c.numWarps != 12 && (c.numWarps != 16 || !t_.kScaled)) {
      add("num_warps",
          fmt::format("expected 8 or 12 for the sm90 matmul (1 producer and 1 or 2 consumer "
                      "warpgroups{}), got {}",
                      t_.kScaled ? "; 16 = 3 consumers for a product scaled per K block" : "",
                      c.numWarps));
    } else {
      const int64_t consumers = c.numWarps / 4 - 1;
      p.consumers = static_cast<int>(consumers);
      if (consumers == 3 && bm != 192)
        errs.push_back(m.error(fmt::format(
            "expected 192 rows of {} for the sm90 matmul with num_warps 16 (3 consumer "
            "warpgroups of 64 rows), got {}",
            m.quoted(), bm)));
      else if (bm % (64 * consumers) != 0)
        errs.push_back(m.error(fmt::format(
            "expected a multiple of {} rows of {} for the sm90 matmul with num_warps {} (64 per "
            "consumer warpgroup), got {}",
            64 * consumers, m.quoted(), c.numWarps, bm)));
      else if (const int64_t regs = t_.kScaled ? 64 : 128; bm / consumers / 64 * bn / 2 > regs)
        errs.push_back(n.error(fmt::format(
            "expected at most {} columns of {} for the sm90 matmul with {} rows and num_warps {} "
            "(at most {} accumulator registers per thread{}), got {}",
            regs * 2 * 64 * consumers / bm, n.quoted(), bm, c.numWarps, regs,
            t_.kScaled ? ", as many again for each K block's part" : "", bn)));
      const int64_t smem = smemOf(stages, bm + bn);
      if (smem > kSmem)
        add("num_stages",
            fmt::format("expected at most {} for the sm90 matmul with {} x {} tiles ({} bytes of "
                        "shared memory, over {}), got {}",
                        (kSmem - 1024 - bm * bn) / ((bm + bn) * 128 + 16), bm, bn, smem, kSmem,
                        stages));
    }
  }
  // An A prologue's staged tensor (MatmulMatch::aStaged) takes a third A-sized block per
  // stage on sm90: the ring is as deep as fits, at most num_stages.
  if (p.sm90 && tilesKnown && ir::matmulStagedTensor(*k_) >= 0)
    while (p.stages > 2 && smemOf(p.stages, 2 * bm + bn) > kSmem)
      --p.stages;
  // The sm80 kernel (the fallback off Hopper, or the kernel without TMA): 8 warps in a
  // 2 x 4 grid, warp tiles multiples of 16 x 16, one CTA per tile.
  // A product scaled per K block holds a part beside the accumulator: tiles of at most
  // 128 x 128 (64 + 64 registers per thread).
  p.sm80Bm = static_cast<int>(std::min<int64_t>(bm, t_.kScaled ? 128 : 256));
  p.sm80Bn = static_cast<int>(std::max<int64_t>(64, t_.kScaled ? std::min<int64_t>(bn, 128) : bn));
  p.sm80Stages = p.stages;
  while (p.sm80Stages > 2 && 128 + p.sm80Stages * (p.sm80Bm + p.sm80Bn) * 128 > kSmem)
    --p.sm80Stages;
  if (!p.sm90 && tilesKnown) {
    if (bn % 64 != 0) {
      errs.push_back(n.error(
          fmt::format("expected a multiple of 64 columns of {} for the sm80 matmul (indexing "
                      "other than tensor_descriptor), got {}",
                      n.quoted(), bn)));
    } else if (bm < 32 || bm > 256) {
      errs.push_back(m.error(
          fmt::format("expected 32 to 256 rows of {} for the sm80 matmul (indexing other than "
                      "tensor_descriptor), got {}",
                      m.quoted(), bm)));
    } else {
      const int64_t smem = 128 + stages * (p.sm80Bm + bn) * 128;
      if (smem > kSmem)
        add("num_stages",
            fmt::format("expected at most {} for the sm80 matmul with {} x {} tiles ({} bytes of "
                        "shared memory, over {}), got {}",
                        (kSmem - 128) / ((p.sm80Bm + bn) * 128), bm, bn, smem, kSmem, stages));
    }
  }

  // What the spec's ranges say (narrow()), for configs that did not come through it.
  if (t_.b >= 0 && withRanges) {
    const RuleTile b = ruleTile(*k_, c, t_.b);
    if (b.known && b.size != 1)
      errs.push_back(b.error(fmt::format(
          "expected 1 for the batch tile {} of a batched tensor-core matmul, got {}; fix it in "
          "the source: hl::block_size({{1, hl::tunable, hl::tunable}})",
          b.quoted(), b.size)));
  }
  if (t_.kScaled) {
    p.kScaleBlock = static_cast<int>(k.size);
    if (withRanges && k.known &&
        (k.size < kMinScaleBlock || k.size > kMaxScaleBlock || (k.size & (k.size - 1)) != 0))
      errs.push_back(k.error(fmt::format(
          "expected a power of two from {} to {} for {} of a product scaled per K block (the "
          "scales' block), got {}",
          kMinScaleBlock, kMaxScaleBlock, k.quoted(), k.size)));
  } else if (withRanges && k.known && k.size != 64)
    errs.push_back(k.error(fmt::format(
        "expected 64 for {} of a tensor-core matmul (one 128-byte swizzle row of 16-bit "
        "elements; the kernels take one such row per k-block whatever the dtype: 32 f32 or 128 "
        "8-bit elements), got {}",
        k.quoted(), k.size)));
  const int64_t minBn = t_.bTransposed ? 16 : 64;
  if (withRanges && n.known && (bn < minBn || bn > 256))
    errs.push_back(n.error(fmt::format("expected {} to 256 columns of {} for a tensor-core "
                                       "matmul, got {}",
                                       minBn, n.quoted(), bn)));
  if (withRanges && m.known && (bm < 64 || bm > 256))
    errs.push_back(m.error(fmt::format("expected 64 to 256 rows of {} for a tensor-core "
                                       "matmul, got {}",
                                       m.quoted(), bm)));
  if (withRanges && c.numStages < 2)
    add("num_stages", fmt::format("expected at least 2 for a tensor-core matmul (its load "
                                  "ring), got {}",
                                  c.numStages));

  // The sm80 kernel runs one CTA per tile: pid_type (and num_warps) are the sm90
  // kernel's only, and a config without it must not differ in them.
  p.persistent = p.sm90 && (c.pidType == PidType::PersistentBlocked ||
                            c.pidType == PidType::PersistentInterleaved);
  p.groupM = c.l2Groupings.empty() ? 1 : std::max(1, c.l2Groupings[0]);
  if (t_.grouped) { // no l2_groupings key (the grid loop has one tile): GROUP_M 8 per group
    p.persistent = true;
    p.groupM = 8;
  }
  if (errs.empty() && out)
    *out = p;
  return errs;
}

} // namespace helion::config
