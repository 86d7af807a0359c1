//===- SyntheticCosts.h - Cost functions with known optima -----*- C++ -*-===//
//
// Stand-ins for GPU timings, over a real ConfigSpec: a cost in "ms" that is 1 at a
// chosen optimum and grows with the distance from it, measured per gene of the
// SearchSpace (ladder steps for block sizes, warps, stages; 0/1 for categories).
// Used by the unit tests and by benchmarks/tune_search.cpp.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"
#include "helion/Tune/Hash.h"
#include "helion/Tune/SearchSpace.h"

#include <cmath>
#include <functional>
#include <string>

namespace helion::tune::test {

using Cost = std::function<double(const config::Config &)>;

/// The optimum the tests look for: softmax (rows of 8192) and matmul, valid configs a
/// few steps away from the default in several keys.
/// (Canonical configs: every entry changed has an effect, config::canonicalize.)
inline config::Config softmaxOptimum(const config::ConfigSpec &spec) {
  config::Config c = spec.defaultConfig();
  c.blockSizes = {4};
  c.reductionLoops = {std::optional<int64_t>(1024)};
  c.numWarps = 4;
  c.pidType = config::PidType::PersistentInterleaved;
  c.vectorBytes = 8;
  return c;
}

inline config::Config matmulOptimum(const config::ConfigSpec &spec) {
  config::Config c = spec.defaultConfig();
  c.blockSizes = {128, 128, 64};
  c.numWarps = 8;
  c.numStages = 3;
  c.pidType = config::PidType::Flat;
  c.l2Groupings = {4};
  return c;
}

/// Sum over genes of the steps away from `opt`: 1 per step for major keys, 0.25 for
/// the others. Separable: every key can be fixed on its own.
inline Cost separable(const config::ConfigSpec &spec, const config::Config &opt) {
  SearchSpace space(spec);
  return [space, opt](const config::Config &c) {
    double d = 0;
    for (const Gene &g : space.genes()) {
      int a = g.get(c), b = g.get(opt);
      double steps = g.ordered ? std::abs(a - b) : (a != b);
      bool major = false;
      for (Key k : majorKeys())
        major |= k == g.key;
      d += (major ? 1.0 : 0.25) * steps;
    }
    return 1 + d;
  };
}

/// separable() plus a valley: block_sizes[0] and num_warps must move together (their
/// ladder indices' sum is what matters most), so one-key steps stall short of `opt`.
inline Cost coupled(const config::ConfigSpec &spec, const config::Config &opt) {
  SearchSpace space(spec);
  Cost base = separable(spec, opt);
  const Gene *bs = nullptr;
  const Gene *warps = nullptr;
  for (const Gene &g : space.genes()) {
    if (g.key == Key::BlockSizes && g.entry == 0)
      bs = &g;
    if (g.key == Key::NumWarps)
      warps = &g;
  }
  return [space, base, opt, b = *bs, w = *warps](const config::Config &c) {
    int sum = b.get(c) + w.get(c), want = b.get(opt) + w.get(opt);
    return base(c) + 3.0 * std::abs(sum - want);
  };
}

/// separable() with failures: +inf for every config whose first block size is above
/// the optimum's (as if those ran out of shared memory), and for num_warps 2.
inline Cost withFailures(const config::ConfigSpec &spec, const config::Config &opt) {
  Cost base = separable(spec, opt);
  return [base, opt](const config::Config &c) -> double {
    if (c.blockSizes[0] > opt.blockSizes[0] || c.numWarps == 2)
      return INFINITY;
    return base(c);
  };
}

/// separable() times 1 + noise, noise uniform in [-amplitude, amplitude], fixed per
/// config and seed (a re-measurement would differ; a search measures each config once).
inline Cost noisy(const config::ConfigSpec &spec, const config::Config &opt, double amplitude,
                  uint64_t seed, std::function<std::string(const config::Config &)> key) {
  Cost base = separable(spec, opt);
  return [=](const config::Config &c) {
    Digest d = Hasher().add(std::to_string(seed)).add(key(c)).digest();
    double u = static_cast<double>(d.lo >> 11) / static_cast<double>(1ull << 53); // [0, 1)
    return base(c) * (1 + amplitude * (2 * u - 1));
  };
}

} // namespace helion::tune::test
