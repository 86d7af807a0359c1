//===- Spec.cpp - helionc spec ---------------------------------------------===//
//
// `helionc spec FILE` prints each kernel's config spec. Hidden, for the configs.random
// test (test/configs/random_configs.py): `--sample N --seed S [--variants B]` prints,
// per kernel, one JSON line with the default config, N configs drawn as the tuner draws
// them (config::randomConfig), and the one-key variants of the default and the first
// B samples (the tuner's genes, tune::SearchSpace over every key, and probes of the
// entries it leaves out), each with its canonical form (config::canonicalize).
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "helion/Config/Candidates.h"
#include "helion/IR/TemplateMatch.h"
#include "helion/Transforms/Passes.h"
#include "helion/Tune/SearchSpace.h"

#include <algorithm>
#include <iostream>
#include <random>

namespace helion::tool {
namespace {

struct SampleOptions {
  int samples = 0;
  uint64_t seed = 0;
  int variantBases = 0;
};

/// Edits of one entry the tuner's genes do not make: every legal value of the scalar
/// keys and of each indexing and eviction entry, so the test sees that entries the
/// spec leaves out (or values canonicalize() evens out) change nothing.
std::vector<std::pair<std::string, config::Config>> probes(const config::Config& base,
                                                           const config::ConfigSpec& spec) {
  std::vector<std::pair<std::string, config::Config>> out;
  auto edit = [&](const std::string& path, auto fn) {
    config::Config c = base;
    fn(c);
    out.emplace_back(path, std::move(c));
  };
  for (int w : {1, 2, 4, 8, 12, 16, 32})
    edit("num_warps", [&](config::Config& c) { c.numWarps = w; });
  for (int st = 1; st <= config::kMaxNumStages; ++st)
    edit("num_stages", [&](config::Config& c) { c.numStages = st; });
  for (config::PidType p : spec.pidTypes)
    edit("pid_type", [&](config::Config& c) { c.pidType = p; });
  for (int m : {1, 2, 4})
    edit("num_sm_multiplier", [&](config::Config& c) { c.numSmMultiplier = m; });
  for (std::optional<int> r : {std::optional<int>(), std::optional<int>(32), std::optional<int>(128)})
    edit("maxnreg", [&](config::Config& c) { c.maxnreg = r; });
  for (int v : {0, 4, 8, 16})
    edit("vector_bytes", [&](config::Config& c) { c.vectorBytes = v; });
  for (config::Indexing v : {config::Indexing::Pointer, config::Indexing::BlockPtr,
                             config::Indexing::TensorDescriptor}) {
    edit("indexing", [&](config::Config& c) { std::fill(c.indexing.begin(), c.indexing.end(), v); });
    for (size_t i = 0; i < base.indexing.size(); ++i)
      edit("indexing[" + std::to_string(i) + "]", [&](config::Config& c) { c.indexing[i] = v; });
  }
  for (config::EvictionPolicy v : {config::EvictionPolicy::Default, config::EvictionPolicy::First,
                                   config::EvictionPolicy::Last})
    for (size_t i = 0; i < base.loadEvictionPolicies.size(); ++i)
      edit("load_eviction_policies[" + std::to_string(i) + "]",
           [&](config::Config& c) { c.loadEvictionPolicies[i] = v; });
  edit("staging", [&](config::Config& c) { // block_ptr and num_stages >= 2 (neighbors())
    for (int site : spec.stageableSites)
      c.indexing[static_cast<size_t>(site)] = config::Indexing::BlockPtr;
    c.numStages = std::max(c.numStages, 3);
  });
  for (size_t i = 0; i < base.l2Groupings.size(); ++i)
    for (int g : {1, 4, 16})
      edit("l2_groupings[" + std::to_string(i) + "]",
           [&](config::Config& c) { c.l2Groupings[i] = g; });
  return out;
}

/// toJson() with the scalar keys the spec leaves out, so that a probe of one reaches
/// the compiler (which accepts and ignores them).
nlohmann::ordered_json fullJson(const config::Config& c, const config::ConfigSpec& spec) {
  nlohmann::ordered_json j = config::toJson(c, spec);
  j["num_stages"] = c.numStages;
  j["num_sm_multiplier"] = c.numSmMultiplier;
  if (c.maxnreg)
    j["maxnreg"] = *c.maxnreg;
  j["vector_bytes"] = c.vectorBytes;
  return j;
}

nlohmann::ordered_json sampleJson(const config::ConfigSpec& spec, const SampleOptions& o) {
  using nlohmann::ordered_json;
  std::mt19937_64 rng(o.seed);
  const config::Config def = spec.defaultConfig();
  ordered_json out;
  out["kernel"] = spec.kernelName;
  out["default"] = config::toJson(def, spec);
  std::vector<config::Config> samples;
  ordered_json list = ordered_json::array();
  for (int i = 0; i < o.samples; ++i) {
    samples.push_back(config::randomConfig(spec, rng));
    list.push_back(config::toJson(samples.back(), spec));
  }
  out["samples"] = list;
  // One-key variants: what pattern search and differential evolution reach by
  // changing one gene (a key's entry) of a config, and the probes. Each with its
  // canonical form, which is what the tuner measures: "offered" when that differs
  // from the base (it must change the code), else the variant must generate the
  // base's code.
  tune::SearchSpace space(spec);
  ordered_json variants = ordered_json::array();
  for (int b = -1; b < o.variantBases && b < static_cast<int>(samples.size()); ++b) {
    const config::Config& base = b < 0 ? def : samples[static_cast<size_t>(b)];
    std::vector<std::pair<std::string, config::Config>> edits;
    for (const tune::Gene& g : space.genes())
      for (int v = 0; v < g.numValues; ++v) {
        config::Config c = base;
        g.set(c, v);
        edits.emplace_back(g.path(), std::move(c));
      }
    for (auto& p : probes(base, spec))
      edits.push_back(std::move(p));
    std::vector<config::Config> seen;
    for (const auto& [path, raw] : edits) {
      if (raw == base || std::find(seen.begin(), seen.end(), raw) != seen.end() ||
          !config::isCandidate(raw, spec))
        continue;
      seen.push_back(raw);
      const config::Config c = config::canonicalize(raw, spec);
      ordered_json entry;
      entry["base"] = b;
      entry["path"] = path;
      entry["offered"] = !(c == base) && config::isCandidate(c, spec);
      entry["raw"] = fullJson(raw, spec);
      entry["config"] = config::toJson(c, spec);
      variants.push_back(std::move(entry));
    }
  }
  out["variants"] = variants;
  return out;
}

} // namespace

void registerSpec(CLI::App& app) {
  auto in = std::make_shared<InputOptions>();
  auto so = std::make_shared<SampleOptions>();
  CLI::App* cmd = app.add_subcommand("spec", "print each kernel's config spec and default config");
  addInputOptions(*cmd, *in);
  // Test support, not listed in --help (the group "" hides them).
  cmd->add_option("--sample", so->samples, "print N random configs per kernel as JSON")
      ->check(CLI::Range(0, 100000))
      ->group("");
  cmd->add_option("--seed", so->seed, "seed of --sample")->group("");
  cmd->add_option("--variants", so->variantBases,
                  "with --sample: one-key variants of the default and the first B samples")
      ->check(CLI::Range(0, 100000))
      ->group("");
  cmd->callback([in, so] {
    DiagnosticEngine diags(std::cerr);
    diags.setColor(stderrWantsColor());
    auto kernels = analyze(*in, {}, nullptr, diags);
    if (!kernels)
      std::exit(1);
    for (const AnalyzedKernel& k : *kernels) {
      if (so->samples > 0 || so->variantBases > 0)
        std::cout << sampleJson(k.spec, *so).dump() << "\n";
      else {
        std::string text = config::formatSpec(k.spec);
        if (std::optional<ir::ChainMatch> c = ir::recognizeChain(k.typed)) {
          // How the config maps to the chain template (ChainRules.h).
          const std::string tm = k.typed.tiles.at(c->tileM).name, th = k.typed.tiles.at(c->tileH).name;
          text.insert(text.find("default config:"),
                      "  chain template          two chained dots: on sm_90a they run as the "
                          "chain template where the tensors fit it\n"
                          "                          (one dtype of bf16/f16, the first dot's K 64, "
                          "128 or 256, N a multiple of 8); its\n"
                          "                          rows and hidden tiles are 128 where " + tm +
                          " and " + th + " are 128 or more, else 64;\n"
                          "                          num_stages its ring depth; the other "
                          "keys configure the generic kernel only (docs/gemm.md)\n");
        }
        std::cout << text << "\n";
      }
    }
  });
}

} // namespace helion::tool
