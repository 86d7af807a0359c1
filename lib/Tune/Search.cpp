//===- Search.cpp - What every search strategy shares ----------------------===//
//
// The base class owns the bookkeeping the strategies must not get wrong: the
// candidate budget, the deadline, dedup against everything proposed, validity,
// and the best finite cost.
//===----------------------------------------------------------------------===//
#include "helion/Tune/Search.h"
#include "Strategies.h"

#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"

namespace helion::tune {

using config::Config;

std::optional<Effort> parseEffort(std::string_view name) {
  if (name == "quick")
    return Effort::Quick;
  if (name == "full")
    return Effort::Full;
  return std::nullopt;
}

SearchOptions optionsFor(Effort effort) {
  SearchOptions o;
  if (effort == Effort::Quick) {
    o.maxCandidates = 150;
    o.keys = majorKeys();
  } else {
    o.maxCandidates = 1500;
  }
  return o;
}

Search::Search(const config::ConfigSpec &spec, SearchOptions options)
    : spec_(spec), options_(std::move(options)), space_(spec_, options_.keys),
      default_(spec_.defaultConfig()), rng_(options_.seed) {}

Search::~Search() = default;

// Configs with the same canonical form generate the same code: one record.
std::string Search::keyOf(const Config &c) const {
  return config::formatConfig(config::canonicalize(c, spec_), spec_);
}

bool Search::seen(const Config &c) const { return records_.count(keyOf(c)) != 0; }

std::optional<double> Search::costOf(const Config &c) const {
  auto it = records_.find(keyOf(c));
  return it == records_.end() ? std::nullopt : it->second.cost;
}

Config Search::randomCandidate() {
  return space_.project(config::randomConfig(spec_, rng_), default_);
}

std::vector<Config> Search::initialConfigs() const {
  std::vector<Config> out = {default_};
  out.insert(out.end(), options_.starts.begin(), options_.starts.end());
  return out;
}

bool Search::budgetSpent() const {
  if (options_.maxCandidates && proposed_ >= options_.maxCandidates)
    return true;
  return options_.deadline && options_.clock() >= *options_.deadline;
}

bool Search::Batch::offer(const Config &raw) {
  if (full() || search_.budgetSpent())
    return false;
  // What is proposed (and measured) is the canonical form: a change without effect
  // is a repeat. Repeats are checked before validity: isCandidate() costs more than a
  // lookup, and most rejected proposals are repeats.
  const Config c = config::canonicalize(raw, search_.spec_);
  std::string key = config::formatConfig(c, search_.spec_);
  if (search_.records_.count(key) || !config::isCandidate(c, search_.spec_))
    return false;
  search_.records_.emplace(std::move(key), Record{});
  ++search_.proposed_;
  ++search_.pending_;
  out_.push_back(c);
  return true;
}

std::vector<Config> Search::next(size_t maxBatch) {
  if (done() || maxBatch == 0)
    return {};
  Batch batch(*this, maxBatch);
  fill(batch);
  // Nothing new and nothing to wait for: the strategy has run out of ideas.
  if (batch.out_.empty() && pending_ == 0)
    finished_ = true;
  return std::move(batch.out_);
}

bool Search::report(const Config &config, double cost) {
  auto it = records_.find(keyOf(config));
  if (it == records_.end() || it->second.cost)
    return false;
  if (std::isnan(cost))
    cost = INFINITY;
  it->second.cost = cost;
  --pending_;
  evaluations_.push_back({config, cost});
  if (cost < bestCost_) {
    bestCost_ = cost;
    best_ = config;
  }
  observe(config, cost);
  return true;
}

bool Search::done() const { return finished_ || budgetSpent(); }

std::optional<Config> Search::best() const { return best_; }

std::unique_ptr<Search> makeSearch(std::string_view name, const config::ConfigSpec &spec,
                                   SearchOptions options) {
  if (name == "pattern")
    return makePatternSearch(spec, std::move(options));
  if (name == "de")
    return makeDifferentialEvolution(spec, std::move(options));
  if (name == "random")
    return makeRandomSearch(spec, std::move(options));
  return nullptr;
}

const std::vector<std::string> &searchNames() {
  static const std::vector<std::string> names = {"pattern", "de", "random"};
  return names;
}

} // namespace helion::tune
