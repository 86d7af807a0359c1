//===- SearchDriver.h - Runs a search against a cost function --*- C++ -*-===//
#pragma once

#include "SyntheticCosts.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Tune/Search.h"

#include <optional>
#include <vector>

namespace helion::tune::test {

struct Run {
  std::vector<config::Config> proposals; ///< in proposal order
  /// Reports until `target` was first reported (1-based), if it was.
  std::optional<size_t> evaluationsToTarget;
};

/// The worker loop of Search.h, in batches of `batch`, until done() or `maxRounds`.
inline Run drive(Search &search, const Cost &cost, size_t batch,
                 const std::optional<config::Config> &target = std::nullopt,
                 size_t maxRounds = 100000) {
  Run run;
  size_t reported = 0;
  for (size_t round = 0; round < maxRounds && !search.done(); ++round) {
    std::vector<config::Config> configs = search.next(batch);
    if (configs.empty())
      break;
    for (const config::Config &c : configs) {
      run.proposals.push_back(c);
      search.report(c, cost(c));
      ++reported;
      if (target && c == *target && !run.evaluationsToTarget)
        run.evaluationsToTarget = reported;
    }
  }
  return run;
}

} // namespace helion::tune::test
