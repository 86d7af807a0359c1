// Tuner candidates: neighbours and random configs are valid, canonical and small enough;
// neighbours are new; canonicalize() evens out entries without effect.
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
          ConfigSpec::fromKernel(test::tiledKernel()),
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
    CHECK(isCandidate(ns[i], spec));
    CHECK(canonicalize(ns[i], spec) == ns[i]);
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
  // Changes without effect are not neighbours: tensor_descriptor is pointer outside
  // tensor-core kernels, block_ptr stages loads of persistent programs only.
  for (Indexing ix : {Indexing::TensorDescriptor, Indexing::BlockPtr}) {
    Config other = base;
    other.indexing = {ix, ix};
    CHECK_FALSE(contains(ns, other));
  }
  Config multiplier = base;
  multiplier.numSmMultiplier = 2;
  CHECK_FALSE(contains(ns, multiplier));

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

TEST_CASE("neighbors of a persistent program stage its loads in one step", "[candidates]") {
  ConfigSpec spec = specs()[1]; // softmax: x[tm, :] can be staged (site 0)
  REQUIRE(spec.stageableSites == std::vector<int>{0});
  Config base = spec.defaultConfig();
  base.pidType = PidType::PersistentInterleaved;
  std::vector<Config> ns = neighbors(base, spec);
  Config staged = base;
  staged.indexing[0] = Indexing::BlockPtr;
  staged.numStages = 2;
  CHECK(contains(ns, staged));
  Config multiplier = base;
  multiplier.numSmMultiplier = 2;
  CHECK(contains(ns, multiplier));
  // Either half alone changes nothing.
  Config half = base;
  half.numStages = 2;
  CHECK_FALSE(contains(ns, half));
  CHECK(canonicalize(half, spec) == base);
  half = base;
  half.indexing[0] = Indexing::BlockPtr;
  CHECK(canonicalize(half, spec) == base);
}

TEST_CASE("canonicalize evens out entries without effect", "[candidates]") {
  for (const ConfigSpec& spec : specs())
    CHECK(canonicalize(spec.defaultConfig(), spec) == spec.defaultConfig());

  ConfigSpec tiled = specs()[2];
  Config d = tiled.defaultConfig();
  Config c = d;
  c.numSmMultiplier = 4; // flat programs: no effect
  c.vectorBytes = 16;    // what auto (0) means
  c.indexing = {Indexing::TensorDescriptor, Indexing::BlockPtr, Indexing::BlockPtr};
  c.numStages = 3;
  CHECK(canonicalize(c, tiled) == d);
  c = d;
  c.pidType = PidType::Xyz;
  c.l2Groupings = {8}; // blockIdx.x / y are the tiles
  Config want = c;
  want.l2Groupings = {1};
  CHECK(canonicalize(c, tiled) == want);
  c.pidType = PidType::Flat;
  CHECK(canonicalize(c, tiled) == c);

  // A matmul: the sm80 template (any indexing but all tensor_descriptor) takes no
  // num_warps or pid_type; xyz is flat and persistent_blocked persistent_interleaved.
  ConfigSpec mm = specs()[0];
  Config m = mm.defaultConfig();
  m.indexing = {Indexing::TensorDescriptor, Indexing::BlockPtr, Indexing::TensorDescriptor};
  m.numWarps = 8;
  m.pidType = PidType::Flat;
  Config sm80 = mm.defaultConfig();
  sm80.indexing.assign(3, Indexing::Pointer);
  CHECK(canonicalize(m, mm) == sm80);
  m = mm.defaultConfig();
  m.pidType = PidType::PersistentBlocked;
  m.maxnreg = 128; // not in a matmul's spec
  CHECK(canonicalize(m, mm) == mm.defaultConfig());
}

TEST_CASE("neighbors of an xyz config swap loop orders", "[candidates]") {
  ConfigSpec spec = specs()[2]; // tiled
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
      CHECK(isCandidate(c, spec));
      CHECK(canonicalize(c, spec) == c);
      if (!contains(seen, c))
        seen.push_back(c);
    }
    CHECK(seen.size() > 150); // not the default over and over
  }
}
