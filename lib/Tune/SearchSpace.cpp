//===- SearchSpace.cpp - Config keys as discrete genes ---------------------===//
#include "helion/Tune/SearchSpace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace helion::tune {

using config::Config;
using config::ConfigSpec;

namespace {

const std::vector<Key> kAllKeys = {Key::BlockSizes,      Key::LoopOrders,
                                   Key::L2Groupings,     Key::ReductionLoops,
                                   Key::RangeUnrollFactors, Key::NumWarps,
                                   Key::NumStages,       Key::PidType,
                                   Key::NumSmMultiplier, Key::Maxnreg,
                                   Key::Indexing,        Key::LoadEvictionPolicies,
                                   Key::VectorBytes};

const std::vector<Key> kMajorKeys = {Key::BlockSizes,     Key::LoopOrders, Key::L2Groupings,
                                     Key::ReductionLoops, Key::NumWarps,   Key::NumStages,
                                     Key::PidType,        Key::Indexing};

std::vector<int64_t> powers(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t v = lo; v <= hi; v *= 2)
    out.push_back(v);
  return out;
}

/// Distance between two values of one ladder; an absent (null) value sits below all.
double distance(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b)
    return a == b ? 0 : 1e18;
  return std::abs(std::log2(static_cast<double>(std::max<int64_t>(*a, 1))) -
                  std::log2(static_cast<double>(std::max<int64_t>(*b, 1)))) +
         (*a == *b ? 0 : 1e-9);
}

/// A gene over `values`; `ref(c)` is the entry in a config. T is int64_t, int or
/// std::optional of those.
template <class T, class Ref>
Gene ladder(Key key, int entry, std::vector<T> values, bool ordered, Ref ref) {
  Gene g;
  g.key = key;
  g.entry = entry;
  g.numValues = static_cast<int>(values.size());
  g.ordered = ordered;
  g.get = [values, ref](const Config &c) {
    const T &v = ref(const_cast<Config &>(c));
    int best = 0;
    double bestDistance = INFINITY;
    for (size_t i = 0; i < values.size(); ++i) {
      double d = distance(values[i], v);
      if (d < bestDistance) {
        bestDistance = d;
        best = static_cast<int>(i);
      }
    }
    return best;
  };
  g.set = [values, ref](Config &c, int i) { ref(c) = values[static_cast<size_t>(i)]; };
  return g;
}

/// A gene over categories compared by equality (enums, bools, permutations).
template <class T, class Ref> Gene category(Key key, int entry, std::vector<T> values, Ref ref) {
  Gene g;
  g.key = key;
  g.entry = entry;
  g.numValues = static_cast<int>(values.size());
  g.get = [values, ref](const Config &c) {
    auto it = std::find(values.begin(), values.end(), T(ref(const_cast<Config &>(c))));
    return it == values.end() ? 0 : static_cast<int>(it - values.begin());
  };
  g.set = [values, ref](Config &c, int i) { ref(c) = values[static_cast<size_t>(i)]; };
  return g;
}

std::vector<std::vector<int>> permutations(size_t k) {
  std::vector<int> p(k);
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<int>> out;
  do
    out.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return out;
}

void addGenes(Key key, const ConfigSpec &s, std::vector<Gene> &out) {
  using config::EvictionPolicy;
  using config::Indexing;
  switch (key) {
  case Key::BlockSizes:
    for (int i = 0; i < static_cast<int>(s.blockSizes.size()); ++i)
      out.push_back(ladder(key, i, s.blockSizeChoices(i), true,
                           [i](Config &c) -> int64_t & { return c.blockSizes[i]; }));
    return;
  case Key::LoopOrders:
    for (int i = 0; i < static_cast<int>(s.multiTileLoops.size()); ++i)
      out.push_back(category(key, i, permutations(s.multiTileLoops[i].tiles.size()),
                             [i](Config &c) -> std::vector<int> & { return c.loopOrders[i]; }));
    return;
  case Key::L2Groupings:
    for (int i = 0; i < static_cast<int>(s.l2Loops.size()); ++i)
      out.push_back(ladder(key, i, powers(1, config::kMaxL2Grouping), true,
                           [i](Config &c) -> int & { return c.l2Groupings[i]; }));
    return;
  case Key::ReductionLoops:
    for (int i = 0; i < static_cast<int>(s.reductionLoops.size()); ++i)
      out.push_back(
          ladder(key, i, s.reductionChoices(i), true,
                 [i](Config &c) -> std::optional<int64_t> & { return c.reductionLoops[i]; }));
    return;
  case Key::RangeUnrollFactors:
    for (int i = 0; i < static_cast<int>(s.unrollLoops.size()); ++i) {
      std::vector<int> values(static_cast<size_t>(config::kMaxRangeUnroll + 1));
      std::iota(values.begin(), values.end(), 0);
      out.push_back(ladder(key, i, values, true,
                           [i](Config &c) -> int & { return c.rangeUnrollFactors[i]; }));
    }
    return;
  case Key::NumWarps:
    out.push_back(ladder(key, -1, s.numWarpsChoices(), true,
                         [](Config &c) -> int & { return c.numWarps; }));
    return;
  case Key::NumStages:
    if (s.hasNumStages())
      out.push_back(ladder(key, -1, s.numStagesChoices(), true,
                           [](Config &c) -> int & { return c.numStages; }));
    return;
  case Key::PidType:
    out.push_back(
        category(key, -1, s.pidTypes, [](Config &c) -> config::PidType & { return c.pidType; }));
    return;
  case Key::NumSmMultiplier: {
    std::vector<int> values = {1, 2, 4};
    if (s.hasNumSmMultiplier())
      out.push_back(
          ladder(key, -1, values, true, [](Config &c) -> int & { return c.numSmMultiplier; }));
    return;
  }
  case Key::Maxnreg: {
    std::vector<std::optional<int>> values = {std::nullopt, 32, 64, 128, 255};
    if (s.hasMaxnreg())
      out.push_back(
          category(key, -1, values, [](Config &c) -> std::optional<int> & { return c.maxnreg; }));
    return;
  }
  case Key::Indexing:
    if (s.hasDot) {
      // One choice for every site: the sm90 template (TMA) or the sm80 one.
      Gene g;
      g.key = key;
      g.numValues = 2;
      g.get = [](const Config &c) {
        return !c.indexing.empty() &&
               std::all_of(c.indexing.begin(), c.indexing.end(),
                           [](Indexing i) { return i == Indexing::TensorDescriptor; });
      };
      g.set = [](Config &c, int i) {
        std::fill(c.indexing.begin(), c.indexing.end(),
                  i ? Indexing::TensorDescriptor : Indexing::Pointer);
      };
      out.push_back(std::move(g));
      return;
    }
    // Elsewhere only loads that can be staged through shared memory (block_ptr).
    for (int i : s.stageableSites)
      out.push_back(category(key, i, std::vector<Indexing>{Indexing::Pointer, Indexing::BlockPtr},
                             [i](Config &c) -> Indexing & { return c.indexing[i]; }));
    return;
  case Key::LoadEvictionPolicies:
    for (int i : s.hintableLoads)
      out.push_back(
          category(key, i,
                   std::vector<EvictionPolicy>{EvictionPolicy::Default, EvictionPolicy::First,
                                               EvictionPolicy::Last},
                   [i](Config &c) -> EvictionPolicy & { return c.loadEvictionPolicies[i]; }));
    return;
  case Key::VectorBytes: {
    std::vector<int> values = {0, 4, 8, 16};
    if (s.hasVectorBytes())
      out.push_back(category(key, -1, values, [](Config &c) -> int & { return c.vectorBytes; }));
    return;
  }
  }
}

} // namespace

const char *keyName(Key key) {
  switch (key) {
  case Key::BlockSizes:
    return "block_sizes";
  case Key::LoopOrders:
    return "loop_orders";
  case Key::L2Groupings:
    return "l2_groupings";
  case Key::ReductionLoops:
    return "reduction_loops";
  case Key::RangeUnrollFactors:
    return "range_unroll_factors";
  case Key::NumWarps:
    return "num_warps";
  case Key::NumStages:
    return "num_stages";
  case Key::PidType:
    return "pid_type";
  case Key::NumSmMultiplier:
    return "num_sm_multiplier";
  case Key::Maxnreg:
    return "maxnreg";
  case Key::Indexing:
    return "indexing";
  case Key::LoadEvictionPolicies:
    return "load_eviction_policies";
  case Key::VectorBytes:
    return "vector_bytes";
  }
  return "?";
}

std::optional<Key> parseKey(const std::string &name) {
  for (Key k : kAllKeys)
    if (name == keyName(k))
      return k;
  return std::nullopt;
}

const std::vector<Key> &allKeys() { return kAllKeys; }
const std::vector<Key> &majorKeys() { return kMajorKeys; }

std::vector<Key> changedKeys(const Config &a, const Config &b) {
  std::vector<Key> out;
  for (Key k : kAllKeys) {
    Config probe = a;
    copyKey(k, b, probe);
    if (!(probe == a))
      out.push_back(k);
  }
  return out;
}

void copyKey(Key key, const Config &from, Config &to) {
  switch (key) {
  case Key::BlockSizes:
    to.blockSizes = from.blockSizes;
    return;
  case Key::LoopOrders:
    to.loopOrders = from.loopOrders;
    return;
  case Key::L2Groupings:
    to.l2Groupings = from.l2Groupings;
    return;
  case Key::ReductionLoops:
    to.reductionLoops = from.reductionLoops;
    return;
  case Key::RangeUnrollFactors:
    to.rangeUnrollFactors = from.rangeUnrollFactors;
    return;
  case Key::NumWarps:
    to.numWarps = from.numWarps;
    return;
  case Key::NumStages:
    to.numStages = from.numStages;
    return;
  case Key::PidType:
    to.pidType = from.pidType;
    return;
  case Key::NumSmMultiplier:
    to.numSmMultiplier = from.numSmMultiplier;
    return;
  case Key::Maxnreg:
    to.maxnreg = from.maxnreg;
    return;
  case Key::Indexing:
    to.indexing = from.indexing;
    return;
  case Key::LoadEvictionPolicies:
    to.loadEvictionPolicies = from.loadEvictionPolicies;
    return;
  case Key::VectorBytes:
    to.vectorBytes = from.vectorBytes;
    return;
  }
}

std::string Gene::path() const {
  return entry < 0 ? keyName(key) : fmt::format("{}[{}]", keyName(key), entry);
}

SearchSpace::SearchSpace(const ConfigSpec &spec, const std::vector<Key> &keys)
    : keys_(keys.empty() ? kAllKeys : keys) {
  for (Key k : kAllKeys) // Helion's order, whatever order `keys` lists them in
    if (allows(k))
      addGenes(k, spec, genes_);
}

bool SearchSpace::allows(Key key) const {
  return std::find(keys_.begin(), keys_.end(), key) != keys_.end();
}

bool SearchSpace::within(const Config &c, const Config &base) const {
  for (Key k : changedKeys(c, base))
    if (!allows(k))
      return false;
  return true;
}

Config SearchSpace::project(Config c, const Config &base) const {
  for (Key k : kAllKeys)
    if (!allows(k))
      copyKey(k, base, c);
  return c;
}

} // namespace helion::tune
