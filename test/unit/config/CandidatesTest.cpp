// Tuner candidates: neighbours and random configs are valid; neighbours are new.
#include "TestKernels.h"
#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace helion;
using namespace helion::config;

namespace {

std::vector<ConfigSpec> specs() {
  SizeHints sm;
  sm.blockSizes[0] = 4096;
  sm.axes[0] = 8192;
  return {ConfigSpec::fromKernel(test::matmulKernel()),
          ConfigSpec::fromKernel(test::softmaxKernel(), sm),
          ConfigSpec::fromKernel(test::softmaxKernel(false)),
          ConfigSpec::fromKernel(test::twoPassKernel())};
}

void checkNeighbors(const Config& base, const ConfigSpec& spec) {
  std::vector<Config> ns = neighbors(base, spec);
  INFO(formatConfig(base, spec));
  CHECK(!ns.empty());
  for (size_t i = 0; i < ns.size(); ++i) {
    INFO(formatConfig(ns[i], spec));
    CHECK(validate(ns[i], spec).empty());
    CHECK_FALSE(ns[i] == base);
    for (size_t j = 0; j < i; ++j)
      CHECK_FALSE(ns[i] == ns[j]);
  }
}

bool contains(const std::vector<Config>& v, const Config& c) {
  return std::find(v.begin(), v.end(), c) != v.end();
}

} // namespace

TEST_CASE("neighbors of default and random configs are valid and new", "[candidates]") {
  std::mt19937_64 rng(42);
  for (const ConfigSpec& spec : specs()) {
    checkNeighbors(spec.defaultConfig(), spec);
    for (int i = 0; i < 30; ++i)
      checkNeighbors(randomConfig(spec, rng), spec);
  }
}

TEST_CASE("neighbors change one entry by one step", "[candidates]") {
  ConfigSpec spec = specs()[1]; // softmax, rows of 8192
  Config base = spec.defaultConfig();
  std::vector<Config> ns = neighbors(base, spec);

  Config doubled = base;
  doubled.blockSizes[0] = 2;
  CHECK(contains(ns, doubled));
  Config looped = base;
  looped.reductionLoops[0] = 4096;
  CHECK(contains(ns, looped));
  Config fewerWarps = base;
  fewerWarps.numWarps = 4;
  CHECK(contains(ns, fewerWarps));
  Config persistent = base;
  persistent.pidType = PidType::PersistentInterleaved;
  CHECK(contains(ns, persistent));
  Config tma = base;
  tma.indexing = {Indexing::TensorDescriptor, Indexing::TensorDescriptor};
  CHECK(contains(ns, tma));

  Config halved = base; // tm = 1 cannot halve: not a candidate
  halved.blockSizes[0] = 0;
  CHECK_FALSE(contains(ns, halved));
  for (const Config& n : ns) {
    int changed = (n.blockSizes != base.blockSizes) + (n.reductionLoops != base.reductionLoops) +
                  (n.numWarps != base.numWarps) + (n.numStages != base.numStages) +
                  (n.pidType != base.pidType) + (n.numSmMultiplier != base.numSmMultiplier) +
                  (n.maxnreg != base.maxnreg) + (n.indexing != base.indexing) +
                  (n.loadEvictionPolicies != base.loadEvictionPolicies) +
                  (n.vectorBytes != base.vectorBytes);
    CHECK(changed == 1);
  }
}

TEST_CASE("neighbors of an xyz config swap loop orders", "[candidates]") {
  ConfigSpec spec = specs()[0]; // matmul
  Config base = spec.defaultConfig();
  base.pidType = PidType::Xyz;
  std::vector<Config> ns = neighbors(base, spec);
  Config swapped = base;
  swapped.loopOrders[0] = {1, 0};
  CHECK(contains(ns, swapped));
}

TEST_CASE("random configs are valid and cover the legal values", "[candidates]") {
  std::mt19937_64 rng(1);
  for (const ConfigSpec& spec : specs()) {
    std::vector<Config> seen;
    for (int i = 0; i < 200; ++i) {
      Config c = randomConfig(spec, rng);
      INFO(formatConfig(c, spec));
      CHECK(validate(c, spec).empty());
      if (!contains(seen, c))
        seen.push_back(c);
    }
    CHECK(seen.size() > 150); // not the default over and over
  }
}
