//===- RandomSearch.cpp - Uniformly random configs -------------------------===//
//
// The baseline the other strategies are measured against: the default config and
// the starts, then randomConfig() draws (within the search space) until the budget
// is spent or draws keep repeating configs already seen (a small space is exhausted).
//===----------------------------------------------------------------------===//
#include "Strategies.h"

namespace helion::tune {
namespace {

class RandomSearch final : public Search {
public:
  using Search::Search;
  const char *name() const override { return "random"; }

private:
  size_t initial_ = 0;

  void fill(Batch &batch) override {
    std::vector<config::Config> initial = initialConfigs();
    for (; initial_ < initial.size() && !batch.full(); ++initial_)
      batch.offer(initial[initial_]);
    // A draw that repeats is free; give up only after many in a row.
    for (int misses = 0; !batch.full() && !done() && misses < 200;)
      misses = batch.offer(randomCandidate()) ? 0 : misses + 1;
  }
};

} // namespace

std::unique_ptr<Search> makeRandomSearch(const config::ConfigSpec &spec, SearchOptions options) {
  return std::make_unique<RandomSearch>(spec, std::move(options));
}

} // namespace helion::tune
