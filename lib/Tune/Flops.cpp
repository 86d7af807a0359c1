//===- Flops.cpp - Tensor-core work of a kernel call -----------------------===//
#include "helion/Tune/Flops.h"

#include <map>
#include <set>
#include <utility>

namespace helion::tune {
namespace {

using namespace ir;

/// A dim a dot iterates over: (true, tile id) or (false, axis id).
using DimKey = std::pair<bool, int>;

class FlopCounter {
public:
  FlopCounter(const Kernel& k, const config::SizeHints& h,
              const std::map<std::string, std::vector<int64_t>>& sizes)
      : k_(k), h_(h), sizes_(sizes) {}

  bool ok = true;
  int dots = 0;
  double flops = 0;

  void stmts(const std::vector<StmtRef>& body) {
    for (const StmtRef& s : body) {
      if (s->kind == StmtKind::For) {
        size_t depth = loops_.size();
        loops_.insert(loops_.end(), s->tiles.begin(), s->tiles.end());
        stmts(s->body);
        loops_.resize(depth);
        continue;
      }
      for (const Expr* e : {s->value.get(), s->mask.get()})
        if (e)
          expr(*e);
    }
  }

private:
  const Kernel& k_;
  const config::SizeHints& h_;
  const std::map<std::string, std::vector<int64_t>>& sizes_;
  std::vector<int> loops_; ///< tiles of the loops around the statement

  void expr(const Expr& e) {
    forEachChild(e, [&](const Expr& c) { expr(c); });
    if (e.kind != ExprKind::Dot)
      return;
    ++dots;
    std::set<DimKey> dims;
    // A loop around the dot over a tile that is none of its dims repeats the same
    // products for each of its tiles (mlp_relu's hidden layer, once per column tile):
    // the useful work counts them once. A loop of one-element tiles (hl::grid over
    // groups, a batch tile of block size 1) runs distinct products: it counts.
    for (int t : loops_) {
      const int decl = k_.tiles[t].blockSize;
      const bool ones = decl >= 0 && decl < static_cast<int>(k_.blockSizes.size()) &&
                        k_.blockSizes[decl].fixed == 1;
      if (ones)
        dims.insert({true, t});
    }
    if (e.type)
      for (const Dim& d : e.type->dims)
        if (d.kind == Dim::Kind::Tile)
          dims.insert({true, d.tile});
    for (size_t i = 0; i < 2 && i < e.operands.size(); ++i) {
      if (!e.operands[i]->type) {
        ok = false;
        return;
      }
      for (const Dim& d : e.operands[i]->type->dims)
        if (d.kind == Dim::Kind::Tile)
          dims.insert({true, d.tile});
        else if (d.kind == Dim::Kind::Full)
          dims.insert({false, d.axis});
    }
    double n = 2;
    for (const DimKey& d : dims) {
      std::optional<int64_t> extent = d.first ? tileExtent(d.second) : axisExtent(d.second);
      if (!extent) {
        ok = false;
        return;
      }
      n *= static_cast<double>(*extent);
    }
    flops += n;
  }

  std::optional<int64_t> tileExtent(int tile) const {
    if (tile < 0 || tile >= static_cast<int>(k_.tiles.size()))
      return std::nullopt;
    int decl = k_.tiles[tile].blockSize;
    if (decl < 0 || decl >= static_cast<int>(k_.blockSizes.size()))
      return std::nullopt;
    auto it = h_.blockSizes.find(k_.blockSizes[decl].id);
    if (it != h_.blockSizes.end())
      return it->second;
    return indexedExtent(tile, k_.body);
  }

  /// The size of the first tensor dim that `tile` indexes in a load or store of `body`.
  std::optional<int64_t> indexedExtent(int tile, const std::vector<StmtRef>& body) const {
    for (const StmtRef& s : body) {
      if (s->kind == StmtKind::Store)
        if (auto e = dimOf(tile, s->param, s->indices))
          return e;
      for (const Expr* e : {s->value.get(), s->mask.get()})
        if (e)
          if (auto v = indexedExtent(tile, *e))
            return v;
      if (auto v = indexedExtent(tile, s->body))
        return v;
    }
    return std::nullopt;
  }

  std::optional<int64_t> indexedExtent(int tile, const Expr& e) const {
    if (e.kind == ExprKind::Load)
      if (auto v = dimOf(tile, e.param, e.indices))
        return v;
    std::optional<int64_t> found;
    forEachChild(e, [&](const Expr& c) {
      if (!found)
        found = indexedExtent(tile, c);
    });
    return found;
  }

  /// `param[indices]`: the size of the dim `Index::ofTile(tile)` stands for.
  std::optional<int64_t> dimOf(int tile, int param, const std::vector<Index>& indices) const {
    if (param < 0 || param >= static_cast<int>(k_.params.size()))
      return std::nullopt;
    auto sizes = sizes_.find(k_.params[param].name);
    if (sizes == sizes_.end())
      return std::nullopt;
    size_t dim = 0; // subscripts consume one tensor dim each, hl::newaxis none
    for (const Index& i : indices) {
      if (i.kind == Index::Kind::NewAxis)
        continue;
      if (i.kind == Index::Kind::Tile && i.tile == tile)
        return dim < sizes->second.size() ? std::optional<int64_t>(sizes->second[dim])
                                          : std::nullopt;
      if (i.kind == Index::Kind::Flat)
        return std::nullopt;
      ++dim;
    }
    return std::nullopt;
  }

  /// The axis's hint, else the size of any tensor dim on it (`out` is a host local).
  std::optional<int64_t> axisExtent(int axis) const {
    if (auto it = h_.axes.find(axis); it != h_.axes.end())
      return it->second;
    if (axis < 0 || axis >= static_cast<int>(k_.axes.size()))
      return std::nullopt;
    for (const auto& [param, dim] : k_.axes[axis].tensorDims) {
      if (param < 0 || param >= static_cast<int>(k_.params.size()))
        continue;
      auto sizes = sizes_.find(k_.params[param].name);
      if (sizes != sizes_.end() && dim >= 0 && dim < static_cast<int>(sizes->second.size()))
        return sizes->second[dim];
    }
    return std::nullopt;
  }
};

} // namespace

std::optional<double> dotFlops(const ir::Kernel& kernel, const config::SizeHints& hints,
                               const std::map<std::string, std::vector<int64_t>>& tensorSizes) {
  FlopCounter c(kernel, hints, tensorSizes);
  c.stmts(kernel.body);
  if (!c.ok || c.dots == 0)
    return std::nullopt;
  return c.flops;
}

} // namespace helion::tune
