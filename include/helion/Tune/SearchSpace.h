//===- helion/Tune/SearchSpace.h - Config keys as discrete genes -*- C++ -*-===//
//
// The search strategies see a config as a list of genes: one per entry of each key
// (`block_sizes[1]`, `num_warps`, `indexing[2]`, ...), each an index into that entry's
// legal values. Values that form a ladder (powers of two, counts) are `ordered`, so a
// step of one index is a step of one notch; the others (pid_type, indexing, loop
// orders) are categories. Only the keys and values the spec offers are genes (num_warps
// of a matmul: 8 and 12; indexing without hl::dot: block_ptr or not on the loads it can
// stage). Cross-key rules (tensor-core tiles, the size limit) are not encoded: a search
// keeps only candidates (config::isCandidate), compared in canonical form.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace helion::tune {

/// A config key (the JSON name is keyName()).
enum class Key : uint8_t {
  BlockSizes,
  LoopOrders,
  L2Groupings,
  ReductionLoops,
  RangeUnrollFactors,
  NumWarps,
  NumStages,
  PidType,
  NumSmMultiplier,
  Maxnreg,
  Indexing,
  LoadEvictionPolicies,
  VectorBytes,
};

const char *keyName(Key key); ///< "block_sizes", ...
std::optional<Key> parseKey(const std::string &name);
const std::vector<Key> &allKeys(); ///< in Helion's order
/// The keys that move run time most in our measurements of the examples (tile sizes,
/// reduction looping, warps, stages, grid mapping, addressing): `--effort quick` tunes
/// only these and leaves the rest at the default config's values.
const std::vector<Key> &majorKeys();

/// The keys whose entries differ between `a` and `b` (configs of one spec).
std::vector<Key> changedKeys(const config::Config &a, const config::Config &b);
/// Copies the entries of `key` from `from` into `to`.
void copyKey(Key key, const config::Config &from, config::Config &to);

/// One entry of one key.
struct Gene {
  Key key;
  int entry = -1;    ///< index within the key's list, -1 for a single value
  int numValues = 0; ///< legal values (>= 1)
  bool ordered = false;
  /// The index of the config's value (the nearest legal one for a value off the list).
  std::function<int(const config::Config &)> get;
  std::function<void(config::Config &, int)> set;
  std::string path() const; ///< "block_sizes[1]", "num_warps"
};

class SearchSpace {
public:
  /// Genes for the entries of `keys` (all keys when empty).
  explicit SearchSpace(const config::ConfigSpec &spec, const std::vector<Key> &keys = {});
  const std::vector<Gene> &genes() const { return genes_; }
  bool allows(Key key) const;
  /// True when `c` differs from `base` only in allowed keys.
  bool within(const config::Config &c, const config::Config &base) const;
  /// `c` with every key outside the space copied from `base`.
  config::Config project(config::Config c, const config::Config &base) const;

private:
  std::vector<Gene> genes_;
  std::vector<Key> keys_;
};

} // namespace helion::tune
