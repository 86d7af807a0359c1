//===- DeviceIndexing.cpp - Subscripts, indices and shapes ----------------===//
//
// `x[tm, hl::all]` and `acc[tb, :]`: a subscript of a tensor is a Load and of a
// block a View; each index is a tile, a tile's slice, hl::all, hl::newaxis or an
// integer expression. Shapes (`{tm, tn}` in hl::zeros) list tiles and integers.
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"

namespace helion::frontend {

using namespace clang;

/// `x[tm, hl::all]` on a tensor is a Load; on a block, a View.
ir::ExprRef KernelLowering::lowerSubscript(const CXXOperatorCallExpr* op) {
  const Expr* object = op->getArg(0);
  std::vector<const Expr*> args(op->arg_begin() + 1, op->arg_end());
  std::vector<ir::Index> indices;
  if (isClass(object->getType(), "helion::Tensor")) {
    auto p = tensorOf(object);
    bool ok = lowerIndices(args, indices);
    if (!p || !ok)
      return nullptr;
    return ir::makeLoad(*p, std::move(indices), loc(op->getBeginLoc()));
  }
  ir::ExprRef base = lowerExpr(object);
  bool ok = lowerIndices(args, indices);
  if (!base || !ok)
    return nullptr;
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i].kind != ir::Index::Kind::All && indices[i].kind != ir::Index::Kind::NewAxis)
      return error(args[i]->getBeginLoc(), "a block can only be subscripted with hl::all and "
                                           "hl::newaxis, found '" + spelling(args[i]) + "'");
  auto v = makeExpr(ir::ExprKind::View, loc(op->getBeginLoc()));
  v->operands = {base};
  v->indices = std::move(indices);
  return v;
}

std::optional<ir::Index> KernelLowering::lowerIndex(const Expr* e) {
  const Expr* s = ignoreWrappers(e);
  if (isNamed(s, "helion::hl::all"))
    return ir::Index::all();
  if (isNamed(s, "helion::hl::newaxis"))
    return ir::Index::newAxis();
  if (auto t = tileOf(s)) {
    const ir::TileVar& tv = kernel_.tiles[*t];
    if (tv.isGrid)
      return ir::Index::scalar(lowerExpr(s));
    return tv.flatOfParam >= 0 ? ir::Index::flat(*t) : ir::Index::ofTile(*t);
  }
  ir::ExprRef v = lowerExpr(s);
  if (!v)
    return std::nullopt;
  if (s->getType()->isIntegralOrEnumerationType())
    return ir::Index::scalar(std::move(v));
  if (s->getType()->isArithmeticType()) {
    error(s->getBeginLoc(), "expected an integer index, found '" + s->getType().getAsString() + "'");
    return std::nullopt;
  }
  return ir::Index::gather(std::move(v));
}

bool KernelLowering::lowerIndices(llvm::ArrayRef<const Expr*> args, std::vector<ir::Index>& out) {
  bool ok = true;
  for (const Expr* a : args) {
    if (isa<CXXDefaultArgExpr>(a))
      continue;
    auto i = lowerIndex(a);
    if (!i) {
      ok = false;
      continue;
    }
    out.push_back(std::move(*i));
  }
  return ok;
}

/// The braced index list of hl::load / hl::store / hl::atomic_add: blocks of indices,
/// one per tensor dim, broadcast together. A tile stands for its indices (`tm` is
/// `tm.index()`, as in ref mode); hl::all, hl::newaxis and N-D tiles are errors here.
bool KernelLowering::lowerIndexList(llvm::ArrayRef<const Expr*> args, std::vector<ir::Index>& out) {
  std::vector<const Expr*> written;
  for (const Expr* a : args)
    if (!isa<CXXDefaultArgExpr>(a))
      written.push_back(a);
  if (!lowerIndices(written, out))
    return false;
  bool ok = true;
  for (size_t d = 0; d < out.size(); ++d) {
    ir::Index& i = out[d];
    if (i.kind == ir::Index::Kind::Tile) {
      auto e = makeExpr(ir::ExprKind::TileIndex, loc(written[d]->getBeginLoc()));
      e->tile = i.tile;
      i = ir::Index::gather(std::move(e));
    } else if (i.kind != ir::Index::Kind::Scalar && i.kind != ir::Index::Kind::Gather) {
      error(written[d]->getBeginLoc(),
            "'" + spelling(written[d]) + "' is not an index of a braced index list: give a "
            "tile, a block of integers or an integer per dim (for a whole dim, subscript the "
            "tensor instead: t[tm, hl::all])");
      ok = false;
    }
  }
  return ok;
}

/// `{tm, tn, d}`: tiles become Tile dims, integers One dims with a shapeSizes entry.
bool KernelLowering::lowerShape(const Expr* list, ir::Expr& into) {
  auto elems = listElements(list);
  if (!elems) {
    error(list->getBeginLoc(), "expected a braced shape such as {tm, tn}, found '" +
                                   spelling(list) + "'");
    return false;
  }
  bool ok = true;
  for (const Expr* e : *elems) {
    if (auto t = tileOf(e); t && !kernel_.tiles[*t].isGrid) {
      into.shape.push_back(ir::Dim::ofTile(*t));
      continue;
    }
    ir::ExprRef size = lowerExpr(e);
    if (!size) {
      ok = false;
      continue;
    }
    into.shape.push_back(ir::Dim::one());
    into.shapeSizes.push_back(std::move(size));
  }
  return ok;
}

} // namespace helion::frontend
