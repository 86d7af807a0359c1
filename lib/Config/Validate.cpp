//===- Validate.cpp - The rules a config must follow under its spec --------===//
//
// Wording follows LLVM's: lower case, what was expected, then what was found:
// `block_sizes[1]: expected a power of two, got 48`. Lengths are checked first;
// entries are checked as far as they exist, so one config yields every error.
//===----------------------------------------------------------------------===//
#include "helion/Config/AttentionSmem.h"
#include "helion/Config/ConfigSpec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace helion::config {
namespace {

std::string loopList(const std::vector<LoopSpec>& loops) {
  std::vector<std::string> names;
  for (const LoopSpec& l : loops)
    names.push_back("(" + l.name + ")");
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string entries(size_t n) { return fmt::format("{} {}", n, n == 1 ? "entry" : "entries"); }

constexpr int64_t kMatmulSmem = 227 * 1024; ///< shared memory of one CTA on sm_90

class Checker {
public:
  explicit Checker(const ConfigSpec& spec) : spec_(spec) {}
  std::vector<ConfigError> errors;

  void add(std::string key, int index, int sub, std::string rule) {
    errors.push_back({std::move(key), index, sub, std::move(rule)});
  }

  /// False (and an error) when `got` entries are not the `want` the spec has.
  bool length(const char* key, size_t got, size_t want, const std::string& what) {
    if (got == want)
      return true;
    add(key, -1, -1, fmt::format("expected {} ({}), got {}", entries(want), what, got));
    return false;
  }

  void run(const Config& c) {
    blockSizes(c);
    loopOrders(c);
    const ConfigSpec& s = spec_;
    if (length("l2_groupings", c.l2Groupings.size(), s.l2Loops.size(),
               s.l2Loops.empty() ? "the kernel has no grid loop of 2 or more tiles"
                                 : "one per grid loop of 2 or more tiles: " + loopList(s.l2Loops)))
      for (size_t i = 0; i < c.l2Groupings.size(); ++i)
        powerOfTwoIn("l2_groupings", static_cast<int>(i), c.l2Groupings[i], 1, kMaxL2Grouping);
    reductionLoops(c);
    std::string inner = !s.unrollLoops.empty() ? "one per inner tile loop: " + loopList(s.unrollLoops)
                        : s.hasDot ? "a tensor-core kernel's loops are unrolled by its template"
                                   : "the kernel has no inner tile loop";
    if (length("range_unroll_factors", c.rangeUnrollFactors.size(), s.unrollLoops.size(), inner))
      for (size_t i = 0; i < c.rangeUnrollFactors.size(); ++i)
        integerIn("range_unroll_factors", static_cast<int>(i), c.rangeUnrollFactors[i], 0,
                  kMaxRangeUnroll);
    // Matrix products also take 12 warps: 2 consumer warpgroups + 1 producer (sm90 GEMM).
    if (!(s.hasDot && c.numWarps == 12))
      powerOfTwoIn("num_warps", -1, c.numWarps, 1, kMaxNumWarps);
    if (s.matmul() && c.numStages < 2)
      add("num_stages", -1, -1,
          fmt::format("expected at least 2 for a tensor-core matmul (its load ring), got {}",
                      c.numStages));
    else
      integerIn("num_stages", -1, c.numStages, 1, kMaxNumStages);
    pidType(c);
    powerOfTwoIn("num_sm_multiplier", -1, c.numSmMultiplier, 1, kMaxNumSmMultiplier);
    if (c.maxnreg && (*c.maxnreg < kMinMaxnreg || *c.maxnreg > kMaxMaxnreg))
      add("maxnreg", -1, -1,
          fmt::format("expected null or an integer in [{}, {}], got {}", kMinMaxnreg, kMaxMaxnreg,
                      *c.maxnreg));
    length("indexing", c.indexing.size(), s.numSites, "one per load/store site");
    length("load_eviction_policies", c.loadEvictionPolicies.size(), s.numLoadSites,
           "one per load site");
    if (c.vectorBytes != 0 && c.vectorBytes != 4 && c.vectorBytes != 8 && c.vectorBytes != 16)
      add("vector_bytes", -1, -1, fmt::format("expected one of 0, 4, 8, 16, got {}", c.vectorBytes));
    if (s.attention)
      attention(c);
    else if (s.matmul())
      matmul(c);
  }

  /// What hd::Gemm (sm90) and hd::GemmSm80 instantiate (lib/CodeGen/MatmulPlan.cpp maps
  /// the config and checks the same as a backstop), on top of the tile ranges of the
  /// spec (tm, tn in [64, 256], tk 64). Every indexing entry tensor_descriptor asks for
  /// the sm90 kernel (TMA + wgmma, 1 or 2 consumer warpgroups), any other for sm80.
  void matmul(const Config& c) {
    std::vector<int> grid, inner;
    if (c.blockSizes.size() != spec_.blockSizes.size())
      return;
    for (size_t i = 0; i < c.blockSizes.size(); ++i)
      (spec_.blockSizes[i].inGridLoop ? grid : inner).push_back(static_cast<int>(i));
    if (grid.size() != 2 || inner.size() != 1)
      return; // not the matmul pattern: the emitter says why
    const int64_t bm = c.blockSizes[grid[0]], bn = c.blockSizes[grid[1]];
    const bool sm90 = !c.indexing.empty() &&
                      std::all_of(c.indexing.begin(), c.indexing.end(),
                                  [](Indexing i) { return i == Indexing::TensorDescriptor; });
    const int64_t stages = c.numStages;
    if (sm90) {
      if (c.numWarps != 8 && c.numWarps != 12) {
        add("num_warps", -1, -1,
            fmt::format("expected 8 or 12 for the sm90 matmul (1 producer and 1 or 2 consumer "
                        "warpgroups), got {}",
                        c.numWarps));
        return;
      }
      const int64_t consumers = c.numWarps == 8 ? 1 : 2;
      if (bm % (64 * consumers) != 0)
        add("block_sizes", grid[0], -1,
            fmt::format("expected a multiple of {} rows of '{}' for the sm90 matmul with num_warps "
                        "{} (64 per consumer warpgroup), got {}",
                        64 * consumers, spec_.blockSizes[grid[0]].name, c.numWarps, bm));
      else if (bm / consumers / 64 * bn / 2 > 128)
        add("block_sizes", grid[1], -1,
            fmt::format("expected at most {} columns of '{}' for the sm90 matmul with {} rows and "
                        "num_warps {} (at most 128 accumulator registers per thread), got {}",
                        128 * 2 * 64 * consumers / bm, spec_.blockSizes[grid[1]].name, bm,
                        c.numWarps, bn));
      // The ring and the smallest tma_store slice (MatmulPlan.cpp).
      const int64_t smem = 1024 + stages * (bm + bn) * 128 + 16 * stages + bm * bn;
      if (smem > kMatmulSmem)
        add("num_stages", -1, -1,
            fmt::format("expected at most {} for the sm90 matmul with {} x {} tiles ({} bytes of "
                        "shared memory, over {}), got {}",
                        (kMatmulSmem - 1024 - bm * bn) / ((bm + bn) * 128 + 16), bm, bn, smem,
                        kMatmulSmem, stages));
      return;
    }
    if (bn % 64 != 0) {
      add("block_sizes", grid[1], -1,
          fmt::format("expected a multiple of 64 columns of '{}' for the sm80 matmul (indexing "
                      "other than tensor_descriptor), got {}",
                      spec_.blockSizes[grid[1]].name, bn));
      return;
    }
    const int64_t smem = 128 + stages * (std::min<int64_t>(bm, 256) + bn) * 128;
    if (smem > kMatmulSmem)
      add("num_stages", -1, -1,
          fmt::format("expected at most {} for the sm80 matmul with {} x {} tiles ({} bytes of "
                      "shared memory, over {}), got {}",
                      (kMatmulSmem - 128) / ((std::min<int64_t>(bm, 256) + bn) * 128), bm, bn,
                      smem, kMatmulSmem, stages));
  }

  /// What hd::AttentionSm80 and hd::AttentionSm90 instantiate (lib/CodeGen/
  /// AttentionConfig.cpp maps the config and checks the same as a backstop): the
  /// tuner only proposes these. Every indexing entry tensor_descriptor asks for the
  /// sm90 kernel (TMA + wgmma), none for the sm80 one (cp.async).
  void attention(const Config& c) {
    const auto tma = std::count(c.indexing.begin(), c.indexing.end(), Indexing::TensorDescriptor);
    const bool sm90 = tma > 0 && tma == static_cast<std::ptrdiff_t>(c.indexing.size());
    if (tma > 0 && !sm90)
      add("indexing", -1, -1,
          "expected tensor_descriptor on every load and store (the sm90 kernel) or on none "
          "(cp.async) for flash attention, got a mix");
    if (sm90)
      attentionSm90(c);
    else
      attentionSm80(c);
    // persistent_interleaved: the sm90 kernel loops over tiles; the sm80 one (a
    // config of its own or the fallback off Hopper) runs one CTA per tile anyway.
    if (c.pidType != PidType::Flat && c.pidType != PidType::Xyz &&
        c.pidType != PidType::PersistentInterleaved)
      add("pid_type", -1, -1,
          fmt::format("expected 'flat', 'xyz' or 'persistent_interleaved' for flash attention, "
                      "got '{}'", pidTypeName(c.pidType)));
    for (size_t i = 0; i < c.l2Groupings.size(); ++i)
      if (c.l2Groupings[i] != 1)
        add("l2_groupings", static_cast<int>(i), -1,
            fmt::format("expected 1 for flash attention (CTAs run b-major), got {}",
                        c.l2Groupings[i]));
  }

  /// The config's [tm, tn] block sizes: the first grid-loop and the first inner
  /// block size, as {index, value}.
  std::pair<std::pair<int, int64_t>, std::pair<int, int64_t>> attentionTiles(const Config& c) {
    std::pair<int, int64_t> rows{-1, 0}, keys{-1, 0};
    if (c.blockSizes.size() != spec_.blockSizes.size())
      return {rows, keys};
    for (size_t i = 0; i < c.blockSizes.size(); ++i) {
      if (spec_.blockSizes[i].inGridLoop && rows.first < 0)
        rows = {static_cast<int>(i), c.blockSizes[i]};
      else if (!spec_.blockSizes[i].inGridLoop && keys.first < 0)
        keys = {static_cast<int>(i), c.blockSizes[i]};
    }
    return {rows, keys};
  }

  void attentionSm80(const Config& c) {
    const bool warpsOk = c.numWarps == 4 || c.numWarps == 8;
    if (!warpsOk)
      add("num_warps", -1, -1,
          fmt::format("expected 4 or 8 for flash attention, got {}", c.numWarps));
    if (c.numStages != 2)
      add("num_stages", -1, -1,
          fmt::format("expected 2 for flash attention (FlashAttention-2's K and V schedule), "
                      "got {}", c.numStages));
    auto [rows, keys] = attentionTiles(c);
    if (rows.first >= 0 && warpsOk && rows.second != 16 * c.numWarps &&
        rows.second != 32 * c.numWarps)
      add("block_sizes", rows.first, -1,
          fmt::format("expected {} or {} rows of '{}' for flash attention with num_warps "
                      "{} (16 or 32 per warp), got {}",
                      16 * c.numWarps, 32 * c.numWarps, spec_.blockSizes[rows.first].name,
                      c.numWarps, rows.second));
    if (keys.first >= 0 && keys.second != 32 && keys.second != 64 && keys.second != 128)
      add("block_sizes", keys.first, -1,
          fmt::format("expected 32, 64 or 128 keys of '{}' for flash attention, got {}",
                      spec_.blockSizes[keys.first].name, keys.second));
  }

  /// hd::AttentionSm90<T, d, BN, Consumers, Stages>: num_warps = 4 x (1 + Consumers),
  /// 64 query rows per consumer, the K / V ring within 227 KB at head dim 128. Three
  /// consumers take 192 rows, the one block size allowed off the powers of two
  /// (blockSizes() skips it).
  void attentionSm90(const Config& c) {
    const bool warpsOk = c.numWarps == 8 || c.numWarps == 12 || c.numWarps == 16;
    const int consumers = c.numWarps / 4 - 1;
    if (!warpsOk)
      add("num_warps", -1, -1,
          fmt::format("expected 8, 12 or 16 for the sm90 flash attention (1 producer and 1 to 3 "
                      "consumer warpgroups), got {}", c.numWarps));
    const bool stagesOk = c.numStages >= 2 && c.numStages <= 4;
    if (!stagesOk)
      add("num_stages", -1, -1,
          fmt::format("expected 2, 3 or 4 for the sm90 flash attention (the TMA ring of K and V "
                      "blocks), got {}", c.numStages));
    auto [rows, keys] = attentionTiles(c);
    if (rows.first >= 0 && warpsOk && rows.second != 64 * consumers)
      add("block_sizes", rows.first, -1,
          fmt::format("expected {} rows of '{}' for the sm90 flash attention with num_warps {} "
                      "(64 per consumer warpgroup), got {}",
                      64 * consumers, spec_.blockSizes[rows.first].name, c.numWarps,
                      rows.second));
    if (keys.first < 0)
      return;
    const int64_t bn = keys.second;
    if (bn != 64 && bn != 128) {
      add("block_sizes", keys.first, -1,
          fmt::format("expected 64 or 128 keys of '{}' for the sm90 flash attention, got {}",
                      spec_.blockSizes[keys.first].name, bn));
      return;
    }
    const int64_t smem = attentionSm90SmemBytes(128, bn, consumers, c.numStages);
    if (warpsOk && stagesOk && smem > 227 * 1024)
      add("num_stages", -1, -1,
          fmt::format("expected at most {} for the sm90 flash attention with num_warps {} and {} "
                      "keys per block ({} bytes of shared memory at head dim 128, over 232448)",
                      (227 * 1024 - 1024 - 64 * consumers * 256 - 16) / (4 * bn * 128 + 32),
                      c.numWarps, bn, smem));
  }

private:
  const ConfigSpec& spec_;

  void powerOfTwoIn(const char* key, int index, int64_t v, int64_t lo, int64_t hi) {
    if (!isPowerOfTwo(v) || v < lo || v > hi)
      add(key, index, -1, fmt::format("expected a power of two in [{}, {}], got {}", lo, hi, v));
  }

  void integerIn(const char* key, int index, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi)
      add(key, index, -1, fmt::format("expected an integer in [{}, {}], got {}", lo, hi, v));
  }

  /// block_sizes[i] is the row tile of the sm90 flash attention with 3 consumer
  /// warpgroups (16 warps, all tensor_descriptor): 192 rows, no power of two.
  bool threeConsumerRows(const Config& c, int i) const {
    if (!spec_.attention || c.numWarps != 16 || c.indexing.empty() ||
        std::any_of(c.indexing.begin(), c.indexing.end(),
                    [](Indexing x) { return x != Indexing::TensorDescriptor; }))
      return false;
    for (size_t j = 0; j < spec_.blockSizes.size(); ++j)
      if (spec_.blockSizes[j].inGridLoop)
        return static_cast<int>(j) == i;
    return false;
  }

  void blockSizes(const Config& c) {
    std::vector<std::string> names;
    for (const BlockSizeSpec& bs : spec_.blockSizes)
      names.push_back(bs.name);
    std::string what = names.empty() ? "the kernel has no tunable block size"
                                     : fmt::format("one per tunable block size: {}",
                                                   fmt::join(names, ", "));
    if (!length("block_sizes", c.blockSizes.size(), spec_.blockSizes.size(), what))
      return;
    for (size_t i = 0; i < c.blockSizes.size(); ++i) {
      const BlockSizeSpec& bs = spec_.blockSizes[i];
      int64_t v = c.blockSizes[i];
      int idx = static_cast<int>(i);
      if (v == 192 && threeConsumerRows(c, idx))
        continue; // attentionSm90 checks the rest
      if (!isPowerOfTwo(v))
        add("block_sizes", idx, -1, fmt::format("expected a power of two, got {}", v));
      else if (v < bs.min)
        add("block_sizes", idx, -1,
            fmt::format("expected at least {} (the minimum of '{}'{}), got {}", bs.min, bs.name,
                        bs.narrowedFor.empty() ? "" : " for " + bs.narrowedFor, v));
      else if (v > bs.max && bs.hint && nextPowerOfTwo(*bs.hint) == bs.max)
        add("block_sizes", idx, -1,
            fmt::format("expected at most {} (the next power of two of the extent {} of '{}'), "
                        "got {}",
                        bs.max, *bs.hint, bs.name, v));
      else if (v > bs.max)
        add("block_sizes", idx, -1,
            fmt::format("expected at most {} (the maximum of '{}'{}), got {}", bs.max, bs.name,
                        bs.narrowedFor.empty() ? "" : " for " + bs.narrowedFor, v));
    }
  }

  void loopOrders(const Config& c) {
    const auto& loops = spec_.multiTileLoops;
    std::string what = loops.empty() ? "the kernel has no tile loop of 2 or more tiles"
                                     : "one per tile loop of 2 or more tiles: " + loopList(loops);
    if (!length("loop_orders", c.loopOrders.size(), loops.size(), what))
      return;
    for (size_t i = 0; i < loops.size(); ++i) {
      std::vector<int> sorted = c.loopOrders[i];
      std::sort(sorted.begin(), sorted.end());
      bool ok = sorted.size() == loops[i].tiles.size();
      for (size_t j = 0; ok && j < sorted.size(); ++j)
        ok = sorted[j] == static_cast<int>(j);
      if (!ok)
        add("loop_orders", static_cast<int>(i), -1,
            fmt::format("expected a permutation of 0..{} (tiles {}), got [{}]",
                        loops[i].tiles.size() - 1, loops[i].name,
                        fmt::join(c.loopOrders[i], ", ")));
    }
  }

  void reductionLoops(const Config& c) {
    const auto& axes = spec_.reductionLoops;
    std::vector<std::string> names;
    for (const ReductionLoopSpec& r : axes)
      names.push_back(r.name);
    std::string what = axes.empty() ? "the kernel has no reduction axis"
                                    : fmt::format("one per reduction axis: {}", fmt::join(names, ", "));
    if (!length("reduction_loops", c.reductionLoops.size(), axes.size(), what))
      return;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!c.reductionLoops[i])
        continue;
      int64_t v = *c.reductionLoops[i];
      const ReductionLoopSpec& r = axes[i];
      if (isPowerOfTwo(v) && v <= r.maxChunk)
        continue;
      std::string rule;
      if (r.maxChunk < 1)
        rule = fmt::format("expected null (persistent): axis {} has extent 1, got {}", r.name, v);
      else if (r.hint)
        rule = fmt::format("expected null (persistent) or a power of two at most {} (below the "
                           "extent {} of axis {}), got {}",
                           r.maxChunk, *r.hint, r.name, v);
      else
        rule = fmt::format("expected null (persistent) or a power of two at most {}, got {}",
                           r.maxChunk, v);
      add("reduction_loops", static_cast<int>(i), -1, std::move(rule));
    }
  }

  void pidType(const Config& c) {
    const auto& legal = spec_.pidTypes;
    if (std::find(legal.begin(), legal.end(), c.pidType) == legal.end()) {
      std::vector<std::string> names;
      for (PidType p : legal)
        names.push_back(fmt::format("'{}'", pidTypeName(p)));
      const char* why = spec_.groupedMatmul
                            ? "a grouped GEMM is persistent: its tiles per group are known on "
                              "the device only"
                            : "xyz needs a single grid loop of at most 3 tiles";
      add("pid_type", -1, -1,
          fmt::format("expected one of {} ({}), got '{}'", fmt::join(names, ", "), why,
                      pidTypeName(c.pidType)));
      return;
    }
  }
};

} // namespace

std::vector<ConfigError> validate(const Config& config, const ConfigSpec& spec) {
  Checker checker(spec);
  checker.run(config);
  return std::move(checker.errors);
}

} // namespace helion::config
