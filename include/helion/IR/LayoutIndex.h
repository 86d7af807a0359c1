//===- helion/IR/LayoutIndex.h - Positions in a kernel's thread layout -*- C++ -*-===//
//
// The thread-layout pass orders a generic kernel's tiles and reduction axes
// (Kernel::threadLayout, innermost first). Passes after it and the emitter ask where
// a value's dims, or a load's last subscript, sit in that order; this index answers
// both the same way (PersistentLoads.cpp, lib/CodeGen's layout).
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <map>
#include <utility>
#include <vector>

namespace helion::ir {

class LayoutIndex {
public:
  LayoutIndex() = default;
  /// The index of `k.threadLayout` (empty when the kernel has none).
  explicit LayoutIndex(const Kernel& k);

  /// The position of tile `id` / reduction axis `id`, or -1 when the layout has none.
  int tile(int id) const { return find(tiles_, id); }
  int axis(int id) const { return find(axes_, id); }
  /// The position of dim `d` of a value (a tile or a reduction axis), or -1 (a dim of
  /// size one, or one the layout does not hold).
  int dim(const Dim& d) const;
  /// The positions of the dims of `t`, ascending (innermost first), each once.
  std::vector<int> positions(const BlockType& t) const;
  /// The position of tensor dim `dim` of param `param` (a whole dim: the reduction axis
  /// that covers it, the last one's when several do), or -1.
  int tensorDim(int param, int dim) const;
  /// The position of the tensor dim that the last subscript of an access to `param`
  /// with subscripts `ix` runs along (a tile, or a whole dim), or -1.
  int lastSubscript(int param, const std::vector<Index>& ix) const;

private:
  static int find(const std::map<int, int>& m, int id) {
    auto it = m.find(id);
    return it == m.end() ? -1 : it->second;
  }
  std::map<int, int> tiles_, axes_;
  std::map<std::pair<int, int>, int> tensorDims_;
};

} // namespace helion::ir
