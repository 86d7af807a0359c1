//===- helion/Tune/Search.h - Search strategies over configs ----*- C++ -*-===//
//
// A search proposes batches of configs and is told what each cost; the caller (the
// tune worker) compiles a batch in parallel, times it and reports back:
//
//   auto search = makeSearch("pattern", spec, optionsFor(Effort::Quick));
//   while (!search->done()) {
//     std::vector<Config> batch = search->next(8);
//     if (batch.empty()) break;              // only when nothing is left unreported
//     for (const Config& c : batch) search->report(c, timeMs(c)); // +inf: failed
//   }
//   search->best();
//
// Every search tries the default config first, then SearchOptions::starts, and never
// proposes a config twice or one that is not a candidate (config::isCandidate: valid and
// within the size limits). It proposes canonical configs (config::canonicalize): two
// configs with one canonical form generate the same code, and count as one. Costs are times in ms; +inf
// (or NaN) marks a candidate that failed to compile, crashed or gave wrong results: it
// is never the best. Budgets: a number of candidates and an optional wall-clock
// deadline (the clock is injectable for tests).
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"
#include "helion/Tune/SearchSpace.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace helion::tune {

using Clock = std::chrono::steady_clock;

struct SearchOptions {
  /// Candidates proposed in all (the default config included). 0 = no limit.
  size_t maxCandidates = 0;
  /// No proposals at or after this time.
  std::optional<Clock::time_point> deadline;
  std::function<Clock::time_point()> clock = [] { return Clock::now(); };
  uint64_t seed = 0;
  /// Configs to try right after the default (a config file's entry, a cached result).
  std::vector<config::Config> starts;
  /// The keys the search may change (the rest keep the default's values); empty = all.
  std::vector<Key> keys;
  /// Pattern search moves only to a neighbour at least this much (relative) cheaper,
  /// so timing noise does not make it wander.
  double minImprovement = 0.01;
  /// Differential evolution: population size.
  size_t population = 0; ///< 0 = the strategy's default
};

/// `--effort`: quick = 150 candidates, major keys only (majorKeys()); full = 1500
/// candidates, every key. docs/tuning.md has the measurements behind these numbers.
enum class Effort { Quick, Full };
std::optional<Effort> parseEffort(std::string_view name);
SearchOptions optionsFor(Effort effort);

/// One reported candidate.
struct Evaluation {
  config::Config config;
  double cost;
};

class Search {
public:
  Search(const config::ConfigSpec &spec, SearchOptions options);
  virtual ~Search();
  Search(const Search &) = delete;
  Search &operator=(const Search &) = delete;

  virtual const char *name() const = 0;

  /// Up to `maxBatch` configs never proposed before. Empty when done(), or while the
  /// strategy waits for reports of configs already proposed.
  std::vector<config::Config> next(size_t maxBatch);
  /// The cost of a proposed config. False (and ignored) for a config not proposed or
  /// already reported.
  bool report(const config::Config &config, double cost);
  /// No more proposals: the budget or the deadline is spent, or the strategy has
  /// converged and every proposal was reported.
  bool done() const;

  /// The cheapest reported config with a finite cost, if any.
  std::optional<config::Config> best() const;
  double bestCost() const { return bestCost_; }
  size_t proposed() const { return proposed_; }
  size_t pending() const { return pending_; }
  const std::vector<Evaluation> &evaluations() const { return evaluations_; }

protected:
  /// Collects a strategy's proposals: drops configs seen before or invalid. Strategies
  /// keep within the search space themselves (a start from a file may lie outside it).
  class Batch {
  public:
    /// True when `c` was new, valid and taken.
    bool offer(const config::Config &c);
    bool full() const { return out_.size() >= limit_; }

  private:
    friend class Search;
    Batch(Search &search, size_t limit) : search_(search), limit_(limit) {}
    Search &search_;
    size_t limit_;
    std::vector<config::Config> out_;
  };

  /// Offers proposals until the batch is full or the strategy has none to make now.
  virtual void fill(Batch &batch) = 0;
  /// Called after each report (cost is +inf for NaN and failures).
  virtual void observe(const config::Config &config, double cost) {}

  bool seen(const config::Config &c) const;
  /// The reported cost of `c`; nullopt when not proposed or not yet reported.
  std::optional<double> costOf(const config::Config &c) const;
  std::string keyOf(const config::Config &c) const;
  /// A random config within the space: randomConfig() with the keys outside
  /// SearchOptions::keys reset to the default's values.
  config::Config randomCandidate();
  /// The default config, then SearchOptions::starts: what every strategy tries first.
  std::vector<config::Config> initialConfigs() const;

  const config::ConfigSpec spec_; ///< a copy: a search may outlive the caller's spec
  SearchOptions options_;
  SearchSpace space_;
  config::Config default_;
  std::mt19937_64 rng_;

private:
  bool budgetSpent() const;

  struct Record {
    std::optional<double> cost; ///< nullopt while pending
  };
  std::unordered_map<std::string, Record> records_;
  std::vector<Evaluation> evaluations_;
  size_t proposed_ = 0, pending_ = 0;
  bool finished_ = false;
  std::optional<config::Config> best_;
  double bestCost_ = INFINITY;
};

/// "pattern", "de" or "random"; nullptr for another name.
std::unique_ptr<Search> makeSearch(std::string_view name, const config::ConfigSpec &spec,
                                   SearchOptions options);
/// The names makeSearch() knows, the default first.
const std::vector<std::string> &searchNames();

} // namespace helion::tune
