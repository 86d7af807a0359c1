//===- DifferentialEvolution.cpp - DE/rand/1/bin over discrete genes -------===//
//
// A population of configs (the default, the starts, then random ones) evolves one
// target at a time: a trial takes, per gene with probability kCrossover (and always
// for one gene), the mutant value a + F * (b - c) of three other members a, b, c,
// computed on the index into the gene's legal values for ladders (block sizes, warps)
// and, for categories (pid_type, indexing), a's value when b and c agree, else a
// random one. A trial at least as cheap as its target replaces it. Trials that repeat
// a config seen before or break a rule are redrawn. Replacement happens as reports
// arrive, so the search never waits for a whole generation.
//===----------------------------------------------------------------------===//
#include "Strategies.h"

#include "helion/Config/Candidates.h"

#include <algorithm>
#include <cmath>

namespace helion::tune {
namespace {

using config::Config;

constexpr double kScale = 0.8;     // F
constexpr double kCrossover = 0.5; // CR
constexpr size_t kDefaultPopulation = 16;
constexpr int kTrialTries = 30;

class DifferentialEvolution final : public Search {
public:
  DifferentialEvolution(const config::ConfigSpec &spec, SearchOptions options)
      : Search(spec, std::move(options)),
        size_(std::max<size_t>(4, options_.population ? options_.population : kDefaultPopulation)) {
  }
  const char *name() const override { return "de"; }

private:
  struct Member {
    Config config;
    double cost;
  };
  size_t size_;
  bool seeding_ = true;
  std::vector<Member> population_;
  std::vector<Config> initial_ = initialConfigs();
  size_t initialOffered_ = 0;
  size_t target_ = 0;
  size_t idleTargets_ = 0; ///< targets in a row that yielded no new trial
  std::unordered_map<std::string, size_t> trialTarget_;

  void fill(Batch &batch) override {
    if (seeding_) {
      seed(batch);
      if (batch.full() || pending() > 0)
        return;
      seeding_ = false; // as large as the space allowed; evolve needs 4 members
    }
    while (!batch.full() && !done() && idleTargets_ < size_) {
      std::optional<Config> trial = makeTrial(target_);
      if (trial && batch.offer(*trial)) {
        trialTarget_[keyOf(*trial)] = target_;
        idleTargets_ = 0;
      } else {
        ++idleTargets_;
      }
      target_ = (target_ + 1) % population_.size();
    }
  }

  /// The initial population: the initial configs, then random ones.
  void seed(Batch &batch) {
    for (; initialOffered_ < initial_.size() && !batch.full(); ++initialOffered_)
      batch.offer(initial_[initialOffered_]);
    for (int misses = 0; proposed() < size_ && !batch.full() && !done() && misses < 200;)
      misses = batch.offer(randomCandidate()) ? 0 : misses + 1;
  }

  void observe(const Config &c, double cost) override {
    auto it = trialTarget_.find(keyOf(c));
    if (it == trialTarget_.end()) {
      population_.push_back({c, cost});
      return;
    }
    Member &target = population_[it->second];
    if (cost <= target.cost)
      target = {c, cost};
    trialTarget_.erase(it);
  }

  size_t uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  double unit() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

  std::optional<Config> makeTrial(size_t t) {
    const std::vector<Gene> &genes = space_.genes();
    const size_t n = population_.size();
    if (genes.empty() || n < 4)
      return std::nullopt;
    for (int tries = 0; tries < kTrialTries; ++tries) {
      size_t a, b, c;
      do
        a = uniform(n);
      while (a == t);
      do
        b = uniform(n);
      while (b == t || b == a);
      do
        c = uniform(n);
      while (c == t || c == a || c == b);
      Config trial = population_[t].config;
      size_t forced = uniform(genes.size());
      for (size_t g = 0; g < genes.size(); ++g) {
        if (g != forced && unit() >= kCrossover)
          continue;
        const Gene &gene = genes[g];
        int va = gene.get(population_[a].config), vb = gene.get(population_[b].config),
            vc = gene.get(population_[c].config);
        int v = va;
        if (gene.ordered)
          v = va + static_cast<int>(std::lround(kScale * (vb - vc)));
        else if (vb != vc)
          v = static_cast<int>(uniform(static_cast<size_t>(gene.numValues)));
        gene.set(trial, std::clamp(v, 0, gene.numValues - 1));
      }
      if (!seen(trial) && config::isCandidate(config::canonicalize(trial, spec_), spec_))
        return trial;
    }
    return std::nullopt;
  }
};

} // namespace

std::unique_ptr<Search> makeDifferentialEvolution(const config::ConfigSpec &spec,
                                                  SearchOptions options) {
  return std::make_unique<DifferentialEvolution>(spec, std::move(options));
}

} // namespace helion::tune
