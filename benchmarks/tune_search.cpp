//===- tune_search.cpp - Search strategies against synthetic costs --------===//
//
// Not a test: prints, per kernel, cost function, effort and strategy, how often the
// known optimum was found over SEEDS seeds, the median number of evaluations until
// it was first measured, and the mean excess of the best config's noise-free cost
// over the optimum's when the budget ran out. docs/tuning.md quotes its output.
//
//   build/bin/tune_search_bench [SEEDS]      (default 20)
//===----------------------------------------------------------------------===//
#include "SearchDriver.h"
#include "SyntheticCosts.h"
#include "TestKernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

using namespace helion;
using namespace helion::tune;

namespace {

struct Problem {
  std::string name;
  config::ConfigSpec spec;
  config::Config optimum;
};

std::vector<Problem> problems() {
  config::SizeHints rows;
  rows.blockSizes[0] = 4096;
  rows.axes[0] = 8192;
  auto softmax = config::ConfigSpec::fromKernel(config::test::softmaxKernel(), rows);
  auto matmul = config::ConfigSpec::fromKernel(config::test::matmulKernel());
  return {{"softmax", softmax, test::softmaxOptimum(softmax)},
          {"matmul", matmul, test::matmulOptimum(matmul)}};
}

} // namespace

int main(int argc, char **argv) {
  const int seeds = argc > 1 ? std::atoi(argv[1]) : 20;
  fmt::print("{:<8} {:<10} {:<6} {:<8} {:>6} {:>10} {:>10} {:>9}\n", "kernel", "cost", "effort",
             "search", "found", "median", "worst", "excess");
  for (const Problem &p : problems()) {
    if (!config::validate(p.optimum, p.spec).empty()) {
      fmt::print("{}: the optimum is not a valid config\n", p.name);
      return 1;
    }
    auto key = [spec = p.spec](const config::Config &c) { return config::formatConfig(c, spec); };
    for (const char *fn : {"separable", "coupled", "failures", "noisy5%"}) {
      for (Effort effort : {Effort::Quick, Effort::Full}) {
        for (const std::string &name : searchNames()) {
          std::vector<size_t> evals;
          double excess = 0;
          for (int seed = 0; seed < seeds; ++seed) {
            SearchOptions o = optionsFor(effort);
            o.seed = static_cast<uint64_t>(seed);
            SearchSpace space(p.spec, o.keys);
            config::Config target = space.project(p.optimum, p.spec.defaultConfig());
            test::Cost clean = test::separable(p.spec, target);
            test::Cost cost = std::string(fn) == "separable" ? clean
                              : std::string(fn) == "coupled" ? test::coupled(p.spec, target)
                              : std::string(fn) == "failures"
                                  ? test::withFailures(p.spec, target)
                                  : test::noisy(p.spec, target, 0.05, seed, key);
            auto search = makeSearch(name, p.spec, o);
            test::Run run = test::drive(*search, cost, 16, target);
            if (run.evaluationsToTarget)
              evals.push_back(*run.evaluationsToTarget);
            if (auto best = search->best())
              excess += clean(*best) - 1;
          }
          std::sort(evals.begin(), evals.end());
          std::string median = evals.empty() ? "-" : std::to_string(evals[evals.size() / 2]);
          std::string worst = evals.empty() ? "-" : std::to_string(evals.back());
          fmt::print("{:<8} {:<10} {:<6} {:<8} {:>3}/{:<2} {:>10} {:>10} {:>9.2f}\n", p.name, fn,
                     effort == Effort::Quick ? "quick" : "full", name, evals.size(), seeds, median,
                     worst, excess / seeds);
        }
      }
    }
  }
}
