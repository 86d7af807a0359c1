//===- FormatSpec.cpp - The spec as `helionc spec` prints it ---------------===//
//
//   config spec of kernel 'softmax' (2 load/store sites, 1 load site)
//     block_sizes             tile sizes, one per tunable block size (fixed ones are not listed)
//       [0] tm                powers of two in [1, 4096] (extent 4096)       default 1
//     reduction_loops         per reduction axis: null = persistent, N = looped in chunks of N
//       [0] a0 (x.size(1))    null or a power of two in [1, 4096] (extent 8192) default null
//     num_warps               warps per program: powers of two in [1, 32]; default 8
//     ...
//   default config:
//   {"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, ...}
//===----------------------------------------------------------------------===//
#include "helion/Config/ConfigJson.h"
#include "helion/Config/Sites.h"
#include "helion/Config/TemplateRules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace helion::config {
namespace {

std::string entries(int n) { return fmt::format("{} {}", n, n == 1 ? "entry" : "entries"); }

class SpecWriter {
public:
  SpecWriter(const ConfigSpec& spec) : s_(spec), d_(spec.defaultConfig()) {}

  std::string run() {
    int loads = s_.numLoadSites; // tensor-core kernels have no eviction entries
    if (s_.kernel) {
      loads = 0;
      for (const Site& site : loadStoreSites(*s_.kernel))
        loads += site.kind == Site::Kind::Load;
    }
    // Which lowering runs the kernel's dots: a slow general lowering where a template
    // was meant shows here first.
    const char* lowering = s_.attention          ? ": its dots run the flash attention template"
                           : s_.groupedMatmul    ? ": its dot runs the grouped GEMM template"
                           : s_.matmul()         ? ": its dot runs the GEMM templates"
                           : s_.generalDot       ? ": its dots run the general hl::dot lowering"
                                                 : "";
    line(0, fmt::format("config spec of kernel '{}' ({} load/store site{}, {} load site{}){}",
                        s_.kernelName, s_.numSites, s_.numSites == 1 ? "" : "s", loads,
                        loads == 1 ? "" : "s", lowering));
    key("block_sizes", "tile sizes, one per tunable block size (fixed ones are not listed)");
    for (size_t i = 0; i < s_.blockSizes.size(); ++i) {
      const BlockSizeSpec& b = s_.blockSizes[i];
      std::string legal = fmt::format("powers of two in [{}, {}]", b.min, b.max);
      if (b.hint)
        legal += fmt::format(" (extent {})", *b.hint);
      entry(i, b.name, legal, std::to_string(d_.blockSizes[i]));
    }
    loops("loop_orders", "order of the tiles of a multi-tile loop, outermost first",
          s_.multiTileLoops, [&](size_t i) {
            return std::pair{"a permutation of 0.." + std::to_string(s_.multiTileLoops[i].tiles.size() - 1),
                             fmt::format("[{}]", fmt::join(d_.loopOrders[i], ", "))};
          });
    loops("l2_groupings", "program ids grouped for L2 reuse (1 = off)", s_.l2Loops, [&](size_t i) {
      return std::pair{fmt::format("powers of two in [1, {}]", kMaxL2Grouping),
                       std::to_string(d_.l2Groupings[i])};
    });
    if (!s_.reductionLoops.empty()) {
      key("reduction_loops", "per reduction axis: null = persistent, N = looped in chunks of N");
      for (size_t i = 0; i < s_.reductionLoops.size(); ++i) {
        const ReductionLoopSpec& r = s_.reductionLoops[i];
        std::string legal = r.maxChunk >= 1
                                ? fmt::format("null or a power of two in [1, {}]", r.maxChunk)
                                : std::string("null");
        if (r.hint)
          legal += fmt::format(" (extent {})", *r.hint);
        entry(i, r.name, legal,
              d_.reductionLoops[i] ? std::to_string(*d_.reductionLoops[i]) : "null");
      }
    }
    loops("range_unroll_factors", "#pragma unroll N on an inner loop (0 = compiler's choice)",
          s_.unrollLoops, [&](size_t i) {
            return std::pair{fmt::format("integers in [0, {}]", kMaxRangeUnroll),
                             std::to_string(d_.rangeUnrollFactors[i])};
          });
    scalar("num_warps", "warps per program", numbers(s_.numWarpsChoices()),
           std::to_string(d_.numWarps));
    if (s_.hasNumStages())
      scalar("num_stages",
             s_.hasDot       ? "pipeline stages of loads"
             : s_.generalDot ? "tiles of the pipelined general dot's loop in flight (1: none)"
                             : "stages of the loads staged by block_ptr in persistent programs",
             numbers(s_.numStagesChoices()), std::to_string(d_.numStages));
    std::vector<std::string> pids;
    for (PidType p : s_.pidTypes)
      pids.push_back(pidTypeName(p));
    scalar("pid_type", "how program ids map to tiles", fmt::format("{}", fmt::join(pids, " | ")),
           pidTypeName(d_.pidType));
    if (s_.hasNumSmMultiplier())
      scalar("num_sm_multiplier", "persistent programs per SM (with persistent_*)",
             fmt::format("powers of two in [1, {}]", kMaxNumSmMultiplier),
             std::to_string(d_.numSmMultiplier));
    if (s_.hasMaxnreg())
      scalar("maxnreg", "registers per thread",
             fmt::format("null or integers in [{}, {}]", kMinMaxnreg, kMaxMaxnreg), "null");
    if (s_.hasDot)
      scalar("indexing", "tensor_descriptor on every site = the sm90 template, else sm80",
             fmt::format("pointer | block_ptr | tensor_descriptor ({})", entries(s_.numSites)),
             d_.indexing.empty() ? "pointer" : indexingName(d_.indexing.front()));
    else
      scalar("indexing",
             "block_ptr stages a load through shared memory in persistent programs with "
             "num_stages >= 2",
             fmt::format("pointer | block_ptr | tensor_descriptor ({}; stageable: {})",
                         entries(s_.numSites), list(s_.stageableSites, "sites ")),
             d_.indexing.empty() ? "pointer" : indexingName(d_.indexing.front()));
    if (s_.numLoadSites > 0)
      scalar("load_eviction_policies",
             "cache eviction hint of each load site (on loads read as vectors)",
             fmt::format("\"\" | first | last ({}; hintable: {})", entries(s_.numLoadSites),
                         list(s_.hintableLoads, "loads ")),
             evictionDefault());
    if (s_.hasVectorBytes())
      scalar("vector_bytes", "bytes per vector access (CUDA)", "0 (auto) | 4 | 8 | 16",
             std::to_string(d_.vectorBytes));
    if (s_.attention)
      templateRules(AttentionRules::describe());
    else if (s_.matmul() && s_.kernel)
      if (std::optional<MatmulRules> rules = MatmulRules::of(*s_.kernel))
        templateRules(rules->describe(s_.groupedMatmul));
    out_ += "default config:\n" + formatConfig(d_, s_) + "\n";
    return out_;
  }

private:
  /// What a template's rules (TemplateRules.h) accept on top of the above.
  void templateRules(const RuleLines& lines) {
    for (size_t i = 0; i < lines.size(); ++i)
      line(i == 0 ? 0 : 2, lines[i]);
  }

  static std::string list(const std::vector<int>& v, const char* what) {
    return v.empty() ? std::string("none") : what + fmt::format("{}", fmt::join(v, ", "));
  }

  /// `""` on every load, or the default's hints by load (first on streamed loads).
  std::string evictionDefault() const {
    std::vector<std::string> hinted;
    for (size_t i = 0; i < d_.loadEvictionPolicies.size(); ++i)
      if (d_.loadEvictionPolicies[i] != EvictionPolicy::Default)
        hinted.push_back(fmt::format("{} on load {}",
                                     evictionPolicyName(d_.loadEvictionPolicies[i]), i));
    return hinted.empty() ? std::string("\"\"")
                          : fmt::format("\"\" but {}", fmt::join(hinted, ", "));
  }

  static std::string numbers(const std::vector<int>& v) {
    return fmt::format("{}", fmt::join(v, " | "));
  }

  const ConfigSpec& s_;
  Config d_;
  std::string out_;

  void line(int indent, const std::string& text) { out_ += std::string(indent, ' ') + text + "\n"; }

  void key(const char* name, const std::string& meaning) {
    line(2, fmt::format("{:<24}{}", name, meaning));
  }

  void entry(size_t i, const std::string& name, const std::string& legal, const std::string& def) {
    line(4, fmt::format("{:<22}{:<46} default {}", fmt::format("[{}] {}", i, name), legal, def));
  }

  void scalar(const char* name, const std::string& meaning, const std::string& legal,
              const std::string& def) {
    line(2, fmt::format("{:<24}{}: {}; default {}", name, meaning, legal, def));
  }

  template <class Fn>
  void loops(const char* name, const std::string& meaning, const std::vector<LoopSpec>& loops,
             Fn legalAndDefault) {
    if (loops.empty())
      return;
    key(name, meaning);
    for (size_t i = 0; i < loops.size(); ++i) {
      auto [legal, def] = legalAndDefault(i);
      entry(i, "(" + loops[i].name + ")", legal, def);
    }
  }
};

} // namespace

std::string formatSpec(const ConfigSpec& spec) { return SpecWriter(spec).run(); }

} // namespace helion::config
