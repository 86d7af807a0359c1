//===- Candidates.cpp - Neighbour and random configs for the tuner ---------===//
//
// Candidates are built by editing entries, put in canonical form and kept only when
// isCandidate() accepts them, so every rule (including cross-key ones like the
// tensor-core tiles and the size limit) holds by construction, and the rules live in
// one place (Validate.cpp, UnrolledSize.cpp, Canonical.cpp).
//===----------------------------------------------------------------------===//
#include "helion/Config/Candidates.h"
#include "helion/Config/TemplateRules.h"
#include "helion/Config/UnrolledSize.h"

#include <algorithm>

namespace helion::config {
namespace {

const std::vector<std::optional<int>> kMaxnregLadder = {std::nullopt, 32, 64, 128, 255};
const std::vector<int> kVectorBytes = {0, 4, 8, 16};
const std::vector<Indexing> kIndexings = {Indexing::Pointer, Indexing::BlockPtr,
                                          Indexing::TensorDescriptor};
const std::vector<EvictionPolicy> kEvictions = {EvictionPolicy::Default, EvictionPolicy::First,
                                                EvictionPolicy::Last};

class NeighborSet {
public:
  NeighborSet(const Config& base, const ConfigSpec& spec) : base_(base), spec_(spec) {}
  std::vector<Config> out;

  /// Adds a copy of the base config edited by `edit`, in canonical form, if it is a
  /// candidate and new.
  template <class Fn> void with(Fn edit) {
    Config n = base_;
    edit(n);
    n = canonicalize(n, spec_);
    if (n == base_ || !isCandidate(n, spec_))
      return;
    if (std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(std::move(n));
  }

  /// x2 and /2 of an integer entry.
  template <class Get> void scale(Get get) {
    with([&](Config& n) { get(n) *= 2; });
    with([&](Config& n) { get(n) /= 2; });
  }

  template <class Get> void step(Get get) {
    with([&](Config& n) { get(n) += 1; });
    with([&](Config& n) { get(n) -= 1; });
  }

  /// The values next to the current one in `ladder` (or the nearest, off it).
  template <class Get> void ladderStep(Get get, const std::vector<int>& ladder) {
    auto at = std::find(ladder.begin(), ladder.end(), get(const_cast<Config&>(base_)));
    if (at == ladder.end()) {
      for (int v : ladder)
        with([&](Config& n) { get(n) = v; });
      return;
    }
    if (at != ladder.begin())
      with([&](Config& n) { get(n) = *(at - 1); });
    if (at + 1 != ladder.end())
      with([&](Config& n) { get(n) = *(at + 1); });
  }

private:
  const Config& base_;
  const ConfigSpec& spec_;
};

template <class T> T pick(const std::vector<T>& choices, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> d(0, choices.size() - 1);
  return choices[d(rng)];
}

std::vector<int64_t> powersOfTwo(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t v = lo; v <= hi; v *= 2)
    out.push_back(v);
  return out;
}

} // namespace

bool isCandidate(const Config& config, const ConfigSpec& spec) {
  if (!validate(config, spec).empty())
    return false;
  return spec.hasDot || !spec.kernel || fitsCandidateLimits(*spec.kernel, config);
}

std::vector<Config> neighbors(const Config& config, const ConfigSpec& spec) {
  const Config c = canonicalize(config, spec);
  NeighborSet set(c, spec);
  for (size_t i = 0; i < c.blockSizes.size(); ++i)
    set.scale([i](Config& n) -> int64_t& { return n.blockSizes[i]; });
  for (size_t i = 0; i < c.loopOrders.size(); ++i)
    for (size_t j = 0; j + 1 < c.loopOrders[i].size(); ++j)
      set.with([&](Config& n) { std::swap(n.loopOrders[i][j], n.loopOrders[i][j + 1]); });
  for (size_t i = 0; i < c.l2Groupings.size(); ++i)
    set.scale([i](Config& n) -> int& { return n.l2Groupings[i]; });
  for (size_t i = 0; i < c.reductionLoops.size() && i < spec.reductionLoops.size(); ++i) {
    if (!c.reductionLoops[i]) {
      int64_t chunk = std::min<int64_t>(4096, spec.reductionLoops[i].maxChunk);
      set.with([&](Config& n) { n.reductionLoops[i] = chunk; });
      continue;
    }
    set.with([&](Config& n) { n.reductionLoops[i].reset(); });
    set.scale([i](Config& n) -> int64_t& { return *n.reductionLoops[i]; });
  }
  for (size_t i = 0; i < c.rangeUnrollFactors.size(); ++i)
    set.step([i](Config& n) -> int& { return n.rangeUnrollFactors[i]; });
  set.ladderStep([](Config& n) -> int& { return n.numWarps; }, spec.numWarpsChoices());
  // Flash attention on sm90: the rows follow the consumer warpgroups, so num_warps and
  // tm move together (2 consumers to 3 is no single-entry step).
  if (spec.attention && spec.kernel)
    if (std::optional<AttentionRules> rules = AttentionRules::of(*spec.kernel))
      for (int w : {8, 12, 16})
        set.with([&](Config& n) { rules->setConsumers(n, w); });
  // So do a product's scaled per K block (tm 192 with 16 warps).
  if (spec.matmul() && spec.kernel)
    if (std::optional<MatmulRules> rules = MatmulRules::of(*spec.kernel);
        rules && rules->tiles().kScaled)
      for (int w : {12, 16})
        set.with([&](Config& n) { rules->setConsumers(n, w); });
  set.ladderStep([](Config& n) -> int& { return n.numStages; }, spec.numStagesChoices());
  for (PidType p : spec.pidTypes)
    set.with([&](Config& n) { n.pidType = p; });
  set.scale([](Config& n) -> int& { return n.numSmMultiplier; });
  auto reg = std::find(kMaxnregLadder.begin(), kMaxnregLadder.end(), c.maxnreg);
  if (reg == kMaxnregLadder.end()) {
    set.with([](Config& n) { n.maxnreg.reset(); });
  } else {
    if (reg != kMaxnregLadder.begin())
      set.with([&](Config& n) { n.maxnreg = *(reg - 1); });
    if (reg + 1 != kMaxnregLadder.end())
      set.with([&](Config& n) { n.maxnreg = *(reg + 1); });
  }
  for (Indexing v : kIndexings) {
    set.with([&](Config& n) { std::fill(n.indexing.begin(), n.indexing.end(), v); });
    for (size_t i = 0; i < c.indexing.size(); ++i)
      set.with([&](Config& n) { n.indexing[i] = v; });
  }
  // Staging needs block_ptr and num_stages >= 2 together: one step.
  set.with([&](Config& n) {
    for (int site : spec.stageableSites)
      n.indexing[static_cast<size_t>(site)] = Indexing::BlockPtr;
    n.numStages = std::max(n.numStages, 2);
  });
  for (EvictionPolicy v : kEvictions)
    for (int i : spec.hintableLoads)
      set.with([&](Config& n) { n.loadEvictionPolicies[static_cast<size_t>(i)] = v; });
  for (int v : kVectorBytes)
    set.with([&](Config& n) { n.vectorBytes = v; });
  return std::move(set.out);
}

namespace {

/// One draw: every entry uniformly from its legal values (not yet a candidate).
Config draw(const ConfigSpec& spec, std::mt19937_64& rng) {
  Config c = spec.defaultConfig();
  for (size_t i = 0; i < spec.blockSizes.size(); ++i)
    c.blockSizes[i] = pick(spec.blockSizeChoices(static_cast<int>(i)), rng);
  for (auto& order : c.loopOrders)
    std::shuffle(order.begin(), order.end(), rng);
  for (int& g : c.l2Groupings)
    g = static_cast<int>(pick(powersOfTwo(1, kMaxL2Grouping), rng));
  for (size_t i = 0; i < spec.reductionLoops.size(); ++i)
    c.reductionLoops[i] = pick(spec.reductionChoices(static_cast<int>(i)), rng);
  std::uniform_int_distribution<int> unroll(0, kMaxRangeUnroll);
  for (int& u : c.rangeUnrollFactors)
    u = unroll(rng);
  c.numWarps = pick(spec.numWarpsChoices(), rng);
  c.numStages = pick(spec.numStagesChoices(), rng);
  c.pidType = pick(spec.pidTypes, rng);
  c.numSmMultiplier = static_cast<int>(pick(powersOfTwo(1, kMaxNumSmMultiplier), rng));
  c.maxnreg = pick(kMaxnregLadder, rng);
  if (spec.hasDot) { // the sm90 or the sm80 template (canonicalize() evens out the rest)
    std::fill(c.indexing.begin(), c.indexing.end(),
              pick(std::vector<Indexing>{Indexing::Pointer, Indexing::TensorDescriptor}, rng));
  } else {
    for (Indexing& v : c.indexing)
      v = pick(kIndexings, rng);
  }
  for (EvictionPolicy& v : c.loadEvictionPolicies)
    v = pick(kEvictions, rng);
  c.vectorBytes = pick(kVectorBytes, rng);
  if (spec.attention && spec.kernel) // what hd::AttentionSm80 / AttentionSm90 instantiate
    if (std::optional<AttentionRules> rules = AttentionRules::of(*spec.kernel))
      rules->draw(rng, c);
  return c;
}

} // namespace

Config randomConfig(const ConfigSpec& spec, std::mt19937_64& rng) {
  // Most draws of a kernel with several block sizes up to 2^20 are too large to
  // compile (a few percent fit); each try costs microseconds.
  constexpr int kDraws = 2000;
  for (int i = 0; i < kDraws; ++i) {
    Config c = canonicalize(draw(spec, rng), spec);
    if (isCandidate(c, spec))
      return c;
  }
  return spec.defaultConfig();
}

} // namespace helion::config
