//===- helion/runtime/ShapeDispatch.h - Pick a config entry by shape -*- C++ -*-===//
//
// A config file may hold several entries for one kernel, each tuned for some tensor
// sizes and, optionally, dtypes (configs/README.md). The generated launcher compiles
// every entry and, at each call, runs the one this function picks; helionc's own config
// reader picks the same way (config::selectConfig), so there is one definition. An
// entry whose dtypes (if it names any) are not the call's does not compete in 1-3:
//   1. the first entry whose tensors all have exactly the tuned sizes;
//   2. else the nearest by the sum over dims of |log2(size / tuned size)| (sizes below
//      1 count as 1); an entry naming a tensor of another rank does not compete; ties
//      go to the earlier entry;
//   3. else the first entry tuned for no shape;
//   4. else 1 and 2 over the entries of any dtypes (a file tuned for bf16 only serves an
//      f16 call with the bf16 entry of its shape, not with entry 0: entry 0 of a flash
//      attention file tuned at head dim 64 ran an f16 call at head dim 128 at 0.56x);
//   5. else entry 0.
// Header-only and dependency-free; no allocation, no lock: it runs on every launch.
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

namespace helion::rt {

/// One tensor of an entry's shape key: the query's tensor `tensor` should have rank
/// `rank` and the sizes at `sizes[offset .. offset + rank)` of the table.
struct ShapeKey {
  int tensor;
  int rank;
  int offset;
};

/// One tensor of an entry's dtype key: the query's tensor `tensor` should have the
/// dtype whose code is `dtype` (the launcher's codes are helion::DType's values).
struct DtypeKey {
  int tensor;
  int dtype;
};

/// An entry: its keys are `keys[firstKey .. firstKey + numKeys)`, none = tuned for no
/// shape; its dtype keys `dtypeKeys[firstDtype .. firstDtype + numDtypes)`, none = any.
struct ShapeEntry {
  int firstKey;
  int numKeys;
  int firstDtype = 0;
  int numDtypes = 0;
};

/// The entry every shape-keyed launcher runs instead of picking one, or -1 (the
/// default): `helionc tune` runs its candidates, all entries of one file, this way.
/// One relaxed atomic load per launch.
inline std::atomic<int>& forcedShapeEntry() {
  static std::atomic<int> entry{-1};
  return entry;
}

/// `query(t, rank)` returns tensor t's sizes (a pointer to `rank` int64s) when it has
/// that rank, else nullptr (absent or another rank); `dtypeOf(t)` its dtype code.
template <class Query, class DtypeOf>
int pickShapeEntry(const ShapeEntry* entries, int numEntries, const ShapeKey* keys,
                   const int64_t* sizes, const DtypeKey* dtypeKeys, Query&& query,
                   DtypeOf&& dtypeOf) {
  auto dtypesMatch = [&](const ShapeEntry& entry) {
    for (int k = entry.firstDtype; k < entry.firstDtype + entry.numDtypes; ++k)
      if (dtypeOf(dtypeKeys[k].tensor) != dtypeKeys[k].dtype)
        return false;
    return true;
  };
  // Steps 1 and 2 over the shape-keyed entries (of the call's dtypes, or of any).
  auto nearestOf = [&](bool anyDtypes) {
    int nearest = -1;
    double best = std::numeric_limits<double>::infinity();
    for (int e = 0; e < numEntries; ++e) {
      const ShapeEntry& entry = entries[e];
      if (entry.numKeys == 0 || (!anyDtypes && !dtypesMatch(entry)))
        continue;
      double distance = 0;
      bool competes = true;
      for (int k = entry.firstKey; k < entry.firstKey + entry.numKeys && competes; ++k) {
        const ShapeKey& key = keys[k];
        const int64_t* have = query(key.tensor, key.rank);
        if (!have) {
          competes = false;
          break;
        }
        for (int d = 0; d < key.rank; ++d) {
          int64_t q = have[d] < 1 ? 1 : have[d];
          int64_t t = sizes[key.offset + d] < 1 ? 1 : sizes[key.offset + d];
          if (q != t)
            distance += std::abs(std::log2(static_cast<double>(q) / static_cast<double>(t)));
        }
      }
      if (!competes)
        continue;
      if (distance == 0)
        return e;
      if (distance < best) {
        best = distance;
        nearest = e;
      }
    }
    return nearest;
  };
  if (int e = nearestOf(false); e >= 0)
    return e;
  for (int e = 0; e < numEntries; ++e)
    if (entries[e].numKeys == 0 && dtypesMatch(entries[e]))
      return e;
  if (int e = nearestOf(true); e >= 0)
    return e;
  return 0;
}

/// The same for a table without dtype keys (every entry's numDtypes is 0).
template <class Query>
int pickShapeEntry(const ShapeEntry* entries, int numEntries, const ShapeKey* keys,
                   const int64_t* sizes, Query&& query) {
  return pickShapeEntry(entries, numEntries, keys, sizes, static_cast<const DtypeKey*>(nullptr),
                        query, [](int) { return -1; });
}

} // namespace helion::rt
