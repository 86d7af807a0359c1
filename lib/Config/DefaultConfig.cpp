//===- DefaultConfig.cpp - The config used before (or without) tuning ------===//
//
// Heuristics in the spirit of Helion's defaults, with the CUDA backend in mind, fitted
// to what `helionc tune` chose on the H100 (docs/tuning.md, configs/h100/):
//
//  * reduction axes: persistent (the whole axis in registers). The launcher already
//    switches a persistent row to a looped one at run time when it exceeds 64 elements
//    per thread, so a long row costs nothing here; tuned configs were persistent on
//    every row kernel, from 1024 to 131072 wide (looped chunks of 4096 measured 0.62x
//    on softmax rows of 32768); except a known row so long that the launcher's chunks
//    would pad it by more than 10 %, looped in chunks that pad it less (chunkLongRows);
//  * inner tile loops (a second loop over a row, as in two-pass softmax or Welford
//    layer norm): the whole axis up to 4096 elements (4096 when unknown), so that a
//    program streams long contiguous row segments; 128-wide tiles with 32 rows per
//    program measured 0.09-0.13x of tuned. Sibling inner loops are not nested: the
//    work of a row is the widest of them, not their product. Matrix products take 32;
//    jagged loops (bounds loaded by the kernel) 16, unrolled 4 times, a budget of 2048
//    elements per program and a warp per 512 of them (kJaggedTile), and the loads
//    they stream (subscripted by their tile) evict_first;
//  * grid tiles: matrix products take 64 x 64 output tiles; other kernels split a
//    budget of elements per program over their grid block sizes, innermost (the
//    contiguous one) first, up to its hint, then the next outer: an embedding lookup
//    over [b, d] gets 1 x 1024 tiles, not 32 x 32 (which measured 0.17x). The budget
//    is 1024 elements for an elementwise kernel, and 4096 elements including the
//    per-row work (reduction axis x inner block sizes) otherwise: softmax over rows
//    of 8192 gets 1 row per program, over rows of 1024 gets 4. Block sizes the source
//    fixes count against the budget;
//  * num_warps: a program of one persistent row of 4096 or more takes a warp per 1024
//    row elements (unpadded), 4 to 16 (tuned: 4 on layer_norm rows of 4096, 8 on rows
//    of 8192 and 10240, 16 on rows of 16384 to 131072); otherwise (inner loops, several
//    rows, elementwise) a warp per 256 elements it touches up to 8, and one per 1024
//    beyond (two-pass softmax's 4096-wide tiles: 8 warps measured 0.99 of tuned, 4
//    warps 0.79); 4 for matrix products; num_stages 1 (3 with a K loop);
//  * everything else off: identity loop orders, flat pids, pointer indexing;
//  * except for matrix products with a K loop, which take the fastest measured
//    sm90 GEMM (docs/gemm.md): 128 x 256 x 64 tiles, 4 stages, 12 warps (2
//    consumer warpgroups + 1 producer), persistent, l2_groupings 8, TMA
//    (tensor_descriptor) everywhere.
//===----------------------------------------------------------------------===//
#include "helion/Config/ConfigSpec.h"
#include "helion/Config/BlockSizes.h"
#include "helion/Config/TemplateRules.h"
#include "helion/Config/UnrolledSize.h"
#include "helion/IR/MmaPlan.h"
#include "helion/IR/Visitor.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace helion::config {
namespace {

constexpr int64_t kInnerTile = 4096;
// A jagged inner loop (bounds loaded by the kernel, extent unknown until run time):
// short tiles, so that short rows waste little, unrolled so that several tiles' loads
// are in flight, and a warp per 512 elements. jagged_sum (H100, rows of 0-64 and
// 0-256 values, 128 and 256 wide, f32 and bf16): 16-row tiles unrolled 4 times with 4
// warps ran 1.06-1.15x torch's segment_reduce; 32-row tiles rolled with 8 warps
// 0.66-0.98x.
constexpr int64_t kJaggedTile = 16;
constexpr int kJaggedUnroll = 4;
constexpr int64_t kJaggedElements = 2048; // per program: 128-wide tiles (256: 0.36-0.8x)
constexpr int64_t kJaggedElementsPerWarp = 512;
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

/// The block-size declarations of the tiles of top-level loops that hold an hl::dot.
std::set<int> dotLoopDecls(const ir::Kernel& k) {
  std::set<int> decls;
  for (const ir::StmtRef& loop : k.body) {
    if (!ir::findExpr(*loop, [](const ir::Expr& e) { return e.kind == ir::ExprKind::Dot; }))
      continue;
    ir::walkStmts({loop}, [&](const ir::Stmt& s) {
      if (s.kind == ir::StmtKind::For)
        for (int t : s.tiles)
          if (!k.tiles.at(t).isGrid)
            decls.insert(k.tiles.at(t).blockSize);
    });
  }
  return decls;
}

int64_t floorPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v)
    p <<= 1;
  return p;
}

/// Grows the grid block sizes, innermost (last) first, each up to its hint (its max)
/// while their product stays within budget.
void splitBudget(const ConfigSpec& spec, const std::vector<int>& grid, int64_t budget,
                 Config& c) {
  int64_t product = 1;
  for (int i : grid)
    product *= c.blockSizes[i];
  for (auto it = grid.rbegin(); it != grid.rend(); ++it) {
    int64_t& v = c.blockSizes[*it];
    const BlockSizeSpec& bs = spec.blockSizes[*it];
    const int64_t cap = bs.hint ? std::min(bs.max, nextPowerOfTwo(*bs.hint)) : bs.max;
    while (v * 2 <= cap && product * 2 <= budget) {
      v *= 2;
      product *= 2;
    }
  }
}

/// Rows too long to hold in registers: the launcher runs them looped in chunks of
/// longRowsChunk(threads) (kLongRowElems elements a thread at most, UnrolledSize.h), which
/// pads a row to a multiple of the chunk. A known row that such chunks would pad by
/// more than 10 % is looped here in the widest power-of-two chunk that pads it by 10 %
/// at most: cross_entropy over 50257 classes at 16 warps pads to 65536 in 16384-wide
/// chunks (1.30x the work) but to 53248 in 4096-wide ones (1.06x); tuned, the latter
/// measured 1.33x faster than the persistent default (H100, 2048 rows).
void chunkLongRows(const ConfigSpec& spec, Config& c) {
  constexpr int64_t kMinChunk = 1024;
  const int threads = 32 * c.numWarps;
  for (size_t i = 0; i < spec.reductionLoops.size(); ++i) {
    const std::optional<int64_t> n = spec.reductionLoops[i].hint;
    if (!n || nextPowerOfTwo(*n) <= kLongRowElems * threads)
      continue;
    auto padded = [&](int64_t chunk) { return (*n + chunk - 1) / chunk * chunk; };
    int64_t chunk = longRowsChunk(threads);
    if (padded(chunk) * 10 <= *n * 11)
      continue; // the launcher's chunks pad it little
    while (chunk > kMinChunk && padded(chunk) * 10 > *n * 11)
      chunk /= 2;
    c.reductionLoops[i] = std::min(chunk, spec.reductionLoops[i].maxChunk);
  }
}

} // namespace

Config ConfigSpec::defaultConfig() const {
  Config c;
  int64_t rowWork = 1;  // elements of one row of output a program works on at once
  int64_t rowElems = 1; // the same, unpadded (rowWork rounds axes up to powers of two)
  for (const ReductionLoopSpec& r : reductionLoops) {
    c.reductionLoops.push_back(std::nullopt);
    rowWork = mulSat(rowWork, r.hint ? nextPowerOfTwo(*r.hint) : kAssumedAxis);
    rowElems = mulSat(rowElems, r.hint ? *r.hint : kAssumedAxis);
  }

  std::vector<int> grid;
  // A dot's defaults: tiles 64 x 64, inner 32. The general dot's: grid tiles 64 then
  // 128 (a warp of 4 holds 16 rows by 128 columns), the first inner tile 64, the
  // others 32; H100, session 11, one run, µs of four kernels under candidate rules
  // (grid tiles, inner tiles; num_stages 3, 4 warps):
  //   kernel          128,64;32,32  64,128;64,32  128,128;32,32  64,64;64,64
  //   mlp_relu             47.5          31.3           46.6          51.4
  //   x @ relu(w)          92.1          83.6           72.7          91.5
  //   (x * 0.5) @ w        60.7          71.0           55.3          83.6
  //   (q kt^T) v           55.6          40.9           59.7          38.9
  // (geometric mean 0.85 of the former 128,64;32,32; `helionc tune` goes on from it).
  // In a kernel with general dots, the loops without a dot (a row reduction beside
  // them) keep the generic defaults: 64-row tiles of whole rows unroll past what NVRTC
  // compiles in minutes.
  const bool dot = hasDot || generalDot;
  const std::set<int> dotDecls = generalDot && kernel ? dotLoopDecls(*kernel) : std::set<int>{};
  auto dotSize = [&](const BlockSizeSpec& bs) {
    return hasDot || (generalDot && (!kernel || dotDecls.count(bs.declId)));
  };
  int64_t innerWork = 1; // the widest inner loop's tile
  int dotGrid = 0;        // grid block sizes of dot loops so far
  bool dotInner = false;  // an inner block size of a dot loop came before
  bool jagged = false;   // a jagged inner loop: see kJaggedTile
  c.blockSizes.resize(blockSizes.size());
  for (size_t i = 0; i < blockSizes.size(); ++i) {
    const BlockSizeSpec& bs = blockSizes[i];
    const bool d = dotSize(bs);
    if (bs.inGridLoop && d) {
      c.blockSizes[i] = clampTo(bs, generalDot && ++dotGrid == 2 ? 128 : 64);
    } else if (bs.inGridLoop) {
      grid.push_back(static_cast<int>(i));
      c.blockSizes[i] = bs.min;
    } else if (d) {
      c.blockSizes[i] = clampTo(bs, generalDot && !dotInner ? 64 : 32);
      dotInner = true;
    } else {
      int64_t want = bs.jagged ? kJaggedTile
                               : std::min(kInnerTile, bs.hint ? nextPowerOfTwo(*bs.hint) : kInnerTile);
      c.blockSizes[i] = clampTo(bs, want);
      innerWork = std::max(innerWork, c.blockSizes[i]);
      jagged |= bs.jagged;
    }
  }
  rowWork = mulSat(rowWork, innerWork);
  if (!grid.empty()) {
    const int64_t elementsPerProgram = jagged ? kJaggedElements : 4096;
    int64_t budget =
        rowWork > 1 ? std::clamp<int64_t>(elementsPerProgram / rowWork, 1, 1024) : 1024;
    budget = std::max<int64_t>(1, budget / fixedGridElements);
    splitBudget(*this, grid, floorPowerOfTwo(budget), c);
  }

  int64_t elements = mulSat(rowWork, fixedGridElements);
  for (int i : grid)
    elements = mulSat(elements, c.blockSizes[i]);
  // One-row programs (rows of 4096 and more): a warp per 1024 row elements, 4 to 16;
  // several rows (or elementwise): a warp per 256 elements up to 8.
  const bool oneRow = !reductionLoops.empty() && innerWork == 1 && elements == rowWork;
  const int64_t warps = oneRow && rowWork >= 4096 ? std::clamp<int64_t>(rowElems / 1024, 4, 16)
                        : jagged ? elements / kJaggedElementsPerWarp
                                 : std::max(std::min<int64_t>(elements / 256, 8), elements / 1024);
  c.numWarps = dot ? 4 : static_cast<int>(std::clamp<int64_t>(floorPowerOfTwo(warps), 1, 16));
  c.numStages = matmul() || generalDot ? 3 : 1;
  if (!dot)
    chunkLongRows(*this, c);
  // A kernel whose dots the mma layout does not take at these sizes runs the
  // shared-memory fallback, which stages the results too, and operands computed in
  // registers are staged whole: where the sizes above do not fit 48 KB in every dtype
  // (a tuning candidate's rule), the former default (grid tiles 128 then 64, inner
  // 32) does.
  if (generalDot && kernel) {
    if (!planMmaFor(*kernel, c) ||
        !fitsCandidateLimits(*kernel, c)) {
      // The former default, then halved while the dots do not fit (the fallback stages
      // operands and results: [128, 32] x [32, 64] is 49664 bytes in f32).
      for (int64_t scale = 1; scale <= 8; scale *= 2) {
        bool first = true;
        for (size_t i = 0; i < blockSizes.size(); ++i) {
          const BlockSizeSpec& bs = blockSizes[i];
          if (!dotSize(bs))
            continue;
          const int64_t want = bs.inGridLoop && first ? 128 : bs.inGridLoop ? 64 : 32;
          c.blockSizes[i] = clampTo(bs, std::max<int64_t>(want / scale, 8));
          first = first && !bs.inGridLoop;
        }
        if (fitsCandidateLimits(*kernel, c))
          break;
      }
    }
  }

  for (const LoopSpec& loop : multiTileLoops) {
    std::vector<int> order(loop.tiles.size());
    std::iota(order.begin(), order.end(), 0);
    c.loopOrders.push_back(std::move(order));
  }
  c.l2Groupings.assign(l2Loops.size(), 1);
  c.rangeUnrollFactors.assign(unrollLoops.size(), 0);
  for (size_t i = 0; i < unrollLoops.size(); ++i)
    for (int decl : unrollLoops[i].blockSizeDecls)
      for (const BlockSizeSpec& bs : blockSizes)
        if (bs.declId == decl && bs.jagged && !dot)
          c.rangeUnrollFactors[i] = kJaggedUnroll;
  c.pidType = PidType::Flat;
  c.indexing.assign(numSites, Indexing::Pointer);
  c.loadEvictionPolicies.assign(numLoadSites, EvictionPolicy::Default);
  // Loads a jagged loop streams (streamedLoads) take evict_first: read once, and the
  // hinted form (a predicated ld.global.nc with an L2 policy) held jagged_sum's kernel
  // to 48 registers against the plain form's 80 (10 programs per SM against 6). H200:
  // bf16 1.24-1.34x torch's segment_reduce (0.98-1.02 without), f32 1.13-1.29x
  // (docs/language.md, session 23).
  for (int i : streamedLoads)
    c.loadEvictionPolicies[static_cast<size_t>(i)] = EvictionPolicy::First;
  if (contendedAtomics && !hasDot && !pidTypes.empty() &&
      pidTypes.back() == PidType::PersistentInterleaved) {
    // Contended atomics (a histogram): persistent programs add into shared-memory
    // copies (privatize-atomics), flushed once per program; 4 programs of 8 warps per
    // SM keep the loads in flight.
    c.pidType = PidType::PersistentInterleaved;
    c.numSmMultiplier = kMaxNumSmMultiplier;
    c.numWarps = std::max(c.numWarps, 8);
  }
  if (!kernel)
    return c;
  if (attention) {
    if (std::optional<AttentionRules> rules = AttentionRules::of(*kernel))
      rules->defaults(*this, c);
  } else if (matmul()) {
    if (std::optional<MatmulRules> rules = MatmulRules::of(*kernel))
      rules->defaults(*this, c);
  }
  return c;
}

} // namespace helion::config
