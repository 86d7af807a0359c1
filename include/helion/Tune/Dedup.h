//===- helion/Tune/Dedup.h - Candidates with identical CUDA -----*- C++ -*-===//
//
// Different configs often generate the same CUDA (a key the kernel ignores, a block
// size clamped to the extent). The tuner compiles and times each distinct text once:
// the first candidate with a given text is its representative, later ones map to it
// and reuse its measured time.
//
//   CandidateDedup dedup;
//   size_t id = dedup.add(cudaText);          // ids count 0, 1, 2, ... in add() order
//   if (dedup.isRepresentative(id)) measure(id);
//   else time[id] = time[dedup.representative(id)];
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Tune/Hash.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace helion::tune {

class CandidateDedup {
public:
  /// Registers the next candidate by its generated text and returns its id.
  size_t add(std::string_view text);
  /// The id of the first candidate whose text equals candidate `id`'s.
  size_t representative(size_t id) const { return representative_.at(id); }
  bool isRepresentative(size_t id) const { return representative(id) == id; }
  size_t size() const { return representative_.size(); }
  /// Distinct texts seen.
  size_t distinct() const { return first_.size(); }

private:
  std::unordered_map<Digest, size_t, DigestHash> first_; ///< text digest -> first id
  std::vector<size_t> representative_;
};

} // namespace helion::tune
