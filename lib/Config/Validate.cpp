//===- Validate.cpp - The rules a config must follow under its spec --------===//
//
// Wording follows LLVM's: lower case, what was expected, then what was found:
// `block_sizes[1]: expected a power of two, got 48`. Lengths are checked first;
// entries are checked as far as they exist, so one config yields every error.
//===----------------------------------------------------------------------===//
#include "helion/Config/ConfigSpec.h"
#include "helion/Config/TemplateRules.h"

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
                                   : "the kernel has no inner tile loop (a loop with independent "
                                     "iterations that is a grid loop's only statement is part "
                                     "of the grid)";
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
    templateRules(c);
  }

  /// What the device library's templates instantiate, by the family's rules
  /// (TemplateRules.h), past the spec's ranges checked above.
  void templateRules(const Config& c) {
    std::vector<ConfigError> rules;
    if (!spec_.kernel)
      return;
    if (spec_.attention) {
      if (std::optional<AttentionRules> r = AttentionRules::of(*spec_.kernel))
        rules = r->check(c, nullptr);
    } else if (spec_.matmul() && c.blockSizes.size() == spec_.blockSizes.size()) {
      if (std::optional<MatmulRules> r = MatmulRules::of(*spec_.kernel))
        rules = r->check(c, nullptr, /*withRanges=*/false);
    }
    errors.insert(errors.end(), rules.begin(), rules.end());
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

  /// block_sizes[i] is the row tile of the sm90 flash attention or of a matmul scaled
  /// per K block with 3 consumer warpgroups (16 warps, all tensor_descriptor): 192 rows,
  /// no power of two.
  bool threeConsumerRows(const Config& c, int i) const {
    if (!spec_.kernel || c.numWarps != 16 || !allTensorDescriptors(c))
      return false;
    if (spec_.attention) {
      std::optional<AttentionRules> rules = AttentionRules::of(*spec_.kernel);
      return rules && ruleTile(*spec_.kernel, c, rules->tiles().m).configIndex == i;
    }
    std::optional<MatmulRules> rules =
        spec_.matmul() ? MatmulRules::of(*spec_.kernel) : std::nullopt;
    return rules && rules->tiles().kScaled &&
           ruleTile(*spec_.kernel, c, rules->tiles().m).configIndex == i;
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
        continue; // the template's rules check the rest
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
