//===- Dedup.cpp - Candidates with identical CUDA --------------------------===//
//
// Texts are compared by their 128-bit digest (Hash.h), not kept: a tuning run sees
// thousands of candidates of tens of kilobytes each.
//===----------------------------------------------------------------------===//
#include "helion/Tune/Dedup.h"

namespace helion::tune {

size_t CandidateDedup::add(std::string_view text) {
  size_t id = representative_.size();
  auto [it, inserted] = first_.emplace(hashText(text), id);
  representative_.push_back(it->second);
  return id;
}

} // namespace helion::tune
