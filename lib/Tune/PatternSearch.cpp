//===- PatternSearch.cpp - Hill climbing over one-step neighbours ----------===//
//
// Start from the cheapest of the default config and the starts. Each round measures
// every neighbour of the centre within the search space: config::neighbors() (one
// entry changed by one step) and one ladder step or another category of each gene
// (SearchSpace.h; this also reaches num_warps 12 <-> 8 of tensor-core kernels, which
// x2 and /2 cannot). After a round, as in Hooke-Jeeves' pattern move, the centre with
// every improving change applied at once is measured too; the search moves to the
// cheapest of that and the neighbours if it beats the centre by SearchOptions::
// minImprovement. A round without such a move is a local optimum: the search restarts
// from a random unseen config while budget remains. A round is one batch of
// independent candidates, so the worker can compile them in parallel.
//
// Neighbours measured in an earlier round are not proposed again, but their known
// cost still counts when choosing the move. Each move strictly lowers the centre's
// cost, so a climb ends.
//===----------------------------------------------------------------------===//
#include "Strategies.h"

#include "helion/Config/Candidates.h"

#include <algorithm>
#include <cmath>

namespace helion::tune {
namespace {

using config::Config;

class PatternSearch final : public Search {
public:
  using Search::Search;
  const char *name() const override { return "pattern"; }

private:
  enum class Phase { Start, Round, Stopped };
  Phase phase_ = Phase::Start;
  /// Start: the configs to climb from (the initial ones, then one random restart).
  std::vector<Config> starts_ = initialConfigs();
  /// Round: the centre's neighbours; `offered_` of them have been handled.
  std::vector<Config> round_;
  size_t offered_ = 0;
  Config centre_;
  double centreCost_ = INFINITY;

  void fill(Batch &batch) override {
    while (!batch.full() && !done()) {
      if (phase_ == Phase::Stopped)
        return;
      std::vector<Config> &list = phase_ == Phase::Start ? starts_ : round_;
      for (; offered_ < list.size() && !batch.full(); ++offered_)
        batch.offer(list[offered_]);
      if (offered_ < list.size() || pending() > 0)
        return; // batch full, or the phase's results are still out
      if (phase_ == Phase::Start)
        climbFromBest(starts_);
      else
        endRound();
    }
  }

  /// The cheapest of `configs` with a finite reported cost.
  std::optional<Config> cheapest(const std::vector<Config> &configs, double &cost) const {
    std::optional<Config> out;
    cost = INFINITY;
    for (const Config &c : configs)
      if (std::optional<double> k = costOf(c); k && *k < cost) {
        cost = *k;
        out = c;
      }
    return out;
  }

  void climbFromBest(const std::vector<Config> &candidates) {
    double cost;
    std::optional<Config> from = cheapest(candidates, cost);
    if (!from) { // every start failed: nothing to climb from
      restart();
      return;
    }
    beginRound(*from, cost);
  }

  void beginRound(const Config &centre, double cost) {
    centre_ = centre;
    centreCost_ = cost;
    round_.clear();
    auto add = [&](Config n) {
      if (!(n == centre_) && space_.within(n, centre_) &&
          std::find(round_.begin(), round_.end(), n) == round_.end())
        round_.push_back(std::move(n));
    };
    for (Config &n : config::neighbors(centre_, spec_))
      add(std::move(n));
    for (const Gene &g : space_.genes()) {
      int v = g.get(centre_);
      for (int w = 0; w < g.numValues; ++w) {
        if (w == v || (g.ordered && std::abs(w - v) != 1))
          continue;
        Config n = centre_;
        g.set(n, w);
        add(std::move(n));
      }
    }
    offered_ = 0;
    phase_ = Phase::Round;
  }

  void endRound() {
    if (phase_ == Phase::Round) {
      double cost;
      std::optional<Config> best = cheapest(round_, cost);
      if (best && cost < centreCost_ * (1 - options_.minImprovement)) {
        // Measure the combined move before choosing: Start phase over {best, combined}.
        starts_ = {*best, combined()};
        offered_ = 0;
        phase_ = Phase::Start;
        return;
      }
    }
    restart(); // a local optimum
  }

  /// The centre with the change of every neighbour that beat it, best first: per gene,
  /// the value of the cheapest improving neighbour that changed it.
  Config combined() const {
    std::vector<std::pair<double, const Config *>> better;
    for (const Config &n : round_)
      if (std::optional<double> k = costOf(n); k && *k < centreCost_)
        better.push_back({*k, &n});
    std::sort(better.begin(), better.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    Config out = centre_;
    std::vector<bool> taken(space_.genes().size(), false);
    for (const auto &[cost, n] : better)
      for (size_t g = 0; g < space_.genes().size(); ++g) {
        const Gene &gene = space_.genes()[g];
        if (!taken[g] && gene.get(*n) != gene.get(centre_)) {
          gene.set(out, gene.get(*n));
          taken[g] = true;
        }
      }
    return out;
  }

  /// Climbs again from a random config not seen yet; stops when none turns up.
  void restart() {
    for (int tries = 0; tries < 200; ++tries) {
      Config c = randomCandidate();
      if (seen(c) || !config::isCandidate(c, spec_))
        continue;
      starts_ = {std::move(c)};
      offered_ = 0;
      phase_ = Phase::Start;
      return;
    }
    phase_ = Phase::Stopped;
  }
};

} // namespace

std::unique_ptr<Search> makePatternSearch(const config::ConfigSpec &spec, SearchOptions options) {
  return std::make_unique<PatternSearch>(spec, std::move(options));
}

} // namespace helion::tune
