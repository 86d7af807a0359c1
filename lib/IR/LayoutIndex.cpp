//===- LayoutIndex.cpp - Positions in a kernel's thread layout -------------===//
#include "helion/IR/LayoutIndex.h"

#include <algorithm>

namespace helion::ir {

LayoutIndex::LayoutIndex(const Kernel& k) {
  if (!k.threadLayout)
    return;
  const std::vector<ThreadAxis>& layout = *k.threadLayout;
  for (size_t p = 0; p < layout.size(); ++p) {
    const ThreadAxis& a = layout[p];
    (a.isTile ? tiles_ : axes_)[a.id] = static_cast<int>(p);
    if (!a.isTile) // a tensor dim on several axes is the last one's
      for (const auto& pd : k.axes.at(a.id).tensorDims)
        tensorDims_[pd] = static_cast<int>(p);
  }
}

int LayoutIndex::dim(const Dim& d) const {
  switch (d.kind) {
  case Dim::Kind::Tile: return tile(d.tile);
  case Dim::Kind::Full: return axis(d.axis);
  case Dim::Kind::One: return -1;
  }
  return -1;
}

std::vector<int> LayoutIndex::positions(const BlockType& t) const {
  std::vector<int> out;
  for (const Dim& d : t.dims) {
    const int p = dim(d);
    if (p >= 0 && std::find(out.begin(), out.end(), p) == out.end())
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int LayoutIndex::tensorDim(int param, int dim) const {
  auto it = tensorDims_.find({param, dim});
  return it == tensorDims_.end() ? -1 : it->second;
}

int LayoutIndex::lastSubscript(int param, const std::vector<Index>& ix) const {
  if (ix.empty())
    return -1;
  const Index& last = ix.back();
  if (last.kind == Index::Kind::All) {
    int dims = 0;
    for (const Index& i : ix)
      dims += i.kind != Index::Kind::NewAxis;
    return tensorDim(param, dims - 1);
  }
  if (last.kind == Index::Kind::Tile || last.kind == Index::Kind::Flat)
    return tile(last.tile);
  return -1;
}

} // namespace helion::ir
