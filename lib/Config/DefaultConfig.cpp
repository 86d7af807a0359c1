//===- DefaultConfig.cpp - The config used before (or without) tuning ------===//
//
// Heuristics in the spirit of Helion's defaults, with the CUDA backend in mind:
//
//  * reduction axes: persistent (the whole axis in registers) when its hint is at
//    most 16384 elements or unknown, else looped in chunks of 4096;
//  * inner tile loops: block size 128 (32 in matrix-product kernels), so that one
//    row segment is a few coalesced 128-byte lines;
//  * grid tiles: matrix products take 64 x 64 output tiles; other kernels split a
//    budget of elements per program over their grid block sizes, innermost first.
//    The budget is 1024 elements for an elementwise kernel, and 4096 elements
//    including the per-row work (reduction chunk x inner block sizes) otherwise:
//    softmax over rows of 8192 gets 1 row per program, over rows of 1024 gets 4.
//    Worked example, add over [m=4, n=1<<20]: tm is capped by its hint at 4, then
//    tn doubles up to 256 (4 x 256 = 1024). Block sizes the source fixes count
//    against the budget;
//  * num_warps: one warp per 256 elements a program touches, 1..8 (4 for matrix
//    products); num_stages 1 (3 for matrix products with a K loop);
//  * everything else off: identity loop orders, flat pids, pointer indexing;
//  * except for matrix products with a K loop, which take the fastest measured
//    sm90 GEMM (docs/gemm.md): 128 x 256 x 64 tiles, 4 stages, 12 warps (2
//    consumer warpgroups + 1 producer), persistent, l2_groupings 8, TMA
//    (tensor_descriptor) everywhere.
//===----------------------------------------------------------------------===//
#include "helion/Config/ConfigSpec.h"

#include <algorithm>
#include <numeric>

namespace helion::config {
namespace {

constexpr int64_t kPersistentLimit = 16384;
constexpr int64_t kLoopedChunk = 4096;
// An axis without a hint, for budgets only. Rows of 4096+ are the common case of
// the row kernels (anchors.md: 8192, 10240), where one row per program at 8 warps
// measured best (docs/performance.md); 1024 gave 4-row programs at 0.66x.
constexpr int64_t kAssumedAxis = 4096;

/// a * b, saturating at 2^40 (far above any budget), so huge hints cannot overflow.
int64_t mulSat(int64_t a, int64_t b) {
  constexpr int64_t kCap = int64_t{1} << 40;
  return a > kCap / std::max<int64_t>(b, 1) ? kCap : a * b;
}

int64_t clampTo(const BlockSizeSpec& bs, int64_t v) { return std::clamp(v, bs.min, bs.max); }

int64_t floorPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v)
    p <<= 1;
  return p;
}

/// Doubles the grid block sizes, last first, while their product stays within budget.
void splitBudget(const ConfigSpec& spec, const std::vector<int>& grid, int64_t budget,
                 Config& c) {
  auto product = [&] {
    int64_t p = 1;
    for (int i : grid)
      p *= c.blockSizes[i];
    return p;
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = grid.rbegin(); it != grid.rend(); ++it) {
      int64_t& v = c.blockSizes[*it];
      if (v * 2 <= spec.blockSizes[*it].max && product() * 2 <= budget) {
        v *= 2;
        grew = true;
      }
    }
  }
}

} // namespace

void ConfigSpec::matmulDefaults(Config& c) const {
  const int64_t wanted[] = {128, 256};
  size_t g = 0;
  for (size_t i = 0; i < blockSizes.size(); ++i) {
    if (blockSizes[i].inGridLoop)
      c.blockSizes[i] = clampTo(blockSizes[i], g < 2 ? wanted[g++] : 1);
    else
      c.blockSizes[i] = clampTo(blockSizes[i], 64);
  }
  c.numWarps = 12;
  c.numStages = 4;
  c.pidType = PidType::PersistentInterleaved;
  c.l2Groupings.assign(l2Loops.size(), 8);
  c.indexing.assign(numSites, Indexing::TensorDescriptor);
}

void ConfigSpec::attentionDefaults(Config& c) const {
  // AttentionSm90<T, d, 128, 2, 2>: TMA + wgmma, 2 consumer warpgroups x 64 query
  // rows, 128 keys per block, 2 K/V stages, persistent (one CTA per SM looping
  // over the tiles); AttentionSm80<T, d, 64, 4, 2> off Hopper. H100
  // (docs/attention.md): 552 TFLOP/s at d = 128 and 373 at d = 64 (the same
  // kernel one CTA per tile: 544 and 350); 3 consumers ([192, 128], 16 warps)
  // reach 408 at d = 64 but spill at d = 128, and one config serves both.
  const int64_t wanted[] = {128, 128};
  size_t t = 0;
  for (size_t i = 0; i < blockSizes.size() && t < 2; ++i)
    c.blockSizes[i] = clampTo(blockSizes[i], wanted[t++]);
  c.numWarps = 12;
  c.numStages = 2;
  c.pidType = PidType::PersistentInterleaved;
  c.l2Groupings.assign(l2Loops.size(), 1);
  c.indexing.assign(numSites, Indexing::TensorDescriptor);
}

Config ConfigSpec::defaultConfig() const {
  Config c;
  int64_t rowWork = 1; // elements of one row of output a program works on at once
  for (const ReductionLoopSpec& r : reductionLoops) {
    if (!r.hint || *r.hint <= kPersistentLimit || r.maxChunk < 1) {
      c.reductionLoops.push_back(std::nullopt);
      rowWork = mulSat(rowWork, r.hint ? nextPowerOfTwo(*r.hint) : kAssumedAxis);
    } else {
      int64_t chunk = std::min(kLoopedChunk, r.maxChunk);
      c.reductionLoops.push_back(chunk);
      rowWork = mulSat(rowWork, chunk);
    }
  }

  std::vector<int> grid;
  c.blockSizes.resize(blockSizes.size());
  for (size_t i = 0; i < blockSizes.size(); ++i) {
    const BlockSizeSpec& bs = blockSizes[i];
    if (bs.inGridLoop) {
      grid.push_back(static_cast<int>(i));
      c.blockSizes[i] = hasDot ? clampTo(bs, 64) : bs.min;
    } else {
      c.blockSizes[i] = clampTo(bs, hasDot ? 32 : 128);
      rowWork = mulSat(rowWork, c.blockSizes[i]);
    }
  }
  if (!hasDot) {
    int64_t budget = rowWork > 1 ? std::clamp<int64_t>(4096 / rowWork, 1, 1024) : 1024;
    budget = std::max<int64_t>(1, budget / fixedGridElements);
    splitBudget(*this, grid, floorPowerOfTwo(budget), c);
  }

  int64_t elements = mulSat(rowWork, fixedGridElements);
  for (int i : grid)
    elements = mulSat(elements, c.blockSizes[i]);
  c.numWarps = hasDot ? 4 : static_cast<int>(std::clamp<int64_t>(floorPowerOfTwo(elements / 256), 1, 8));
  c.numStages = hasDot && !innerLoops.empty() ? 3 : 1;

  for (const LoopSpec& loop : multiTileLoops) {
    std::vector<int> order(loop.tiles.size());
    std::iota(order.begin(), order.end(), 0);
    c.loopOrders.push_back(std::move(order));
  }
  c.l2Groupings.assign(l2Loops.size(), 1);
  c.rangeUnrollFactors.assign(unrollLoops.size(), 0);
  c.pidType = PidType::Flat;
  c.indexing.assign(numSites, Indexing::Pointer);
  c.loadEvictionPolicies.assign(numLoadSites, EvictionPolicy::Default);
  if (attention)
    attentionDefaults(c);
  else if (hasDot && !innerLoops.empty())
    matmulDefaults(c);
  return c;
}

} // namespace helion::config
