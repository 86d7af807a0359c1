//===- ScaledDot.cpp - A dot scaled per K block before it is added ---------===//
#include "helion/IR/ScaledDot.h"

#include "helion/IR/DotShape.h"

namespace helion::ir {
namespace {

/// Bounds the walk of lets that name one another many times.
constexpr int kMaxFactorNodes = 256;

/// What a factor reads of the output tiles.
struct Reads {
  bool m = false, n = false;
  bool nElements = false; ///< tn's elements (a load at tn, tn.index()), not only its attributes
};

class FactorWalk {
public:
  FactorWalk(int m, int n, int k, const std::function<const Expr*(int)>& let)
      : m_(m), n_(n), k_(k), let_(let) {}

  bool tree(const Expr& e, Reads& r) {
    if (++nodes_ > kMaxFactorNodes)
      return false;
    switch (e.kind) {
    case ExprKind::Const:
    case ExprKind::Param: return true;
    case ExprKind::TileAttr:
      if (e.attr == TileAttr::End)
        return false;
      return tile(e.tile, r, /*elements=*/false);
    case ExprKind::TileIndex: return e.tile != k_ && tile(e.tile, r, /*elements=*/true);
    case ExprKind::Var: {
      const Expr* v = let_(e.var);
      return v && tree(*v, r);
    }
    case ExprKind::Load:
      if (e.gatherAll || !e.operands.empty())
        return false;
      for (const Index& ix : e.indices) {
        if (ix.kind == Index::Kind::NewAxis)
          continue;
        if (ix.kind == Index::Kind::Tile) {
          if (ix.tile == k_ || !tile(ix.tile, r, /*elements=*/true))
            return false;
        } else if (ix.kind != Index::Kind::Scalar || !ix.value || !tree(*ix.value, r)) {
          return false;
        }
      }
      return true;
    case ExprKind::Full: return isConstantTile(e);
    default: return pointwiseOperands(e, [&](const Expr& op) { return tree(op, r); });
    }
  }

  /// `e` seen through the lets.
  const Expr* resolve(const Expr* e) const {
    for (int depth = 0; e && e->kind == ExprKind::Var && depth < 8; ++depth)
      e = let_(e->var);
    return e;
  }

  /// The operands of a tree of multiplications rooted at `e`.
  bool leaves(const Expr* e, std::vector<const Expr*>& out) {
    e = resolve(e);
    if (!e || ++nodes_ > kMaxFactorNodes)
      return false;
    if (e->kind == ExprKind::Binary && e->binary == BinaryOp::Mul && e->operands.size() == 2)
      return leaves(e->operands[0].get(), out) && leaves(e->operands[1].get(), out);
    out.push_back(e);
    return true;
  }

private:
  int m_, n_, k_;
  const std::function<const Expr*(int)>& let_;
  int nodes_ = 0;

  bool tile(int t, Reads& r, bool elements) const {
    if (t == m_)
      r.m = true;
    else if (t == n_)
      r.n = true, r.nElements = r.nElements || elements;
    else if (t != k_)
      return false;
    return true;
  }
};

/// Whether the factor's shape broadcasts along the columns ([tm, 1], one element) or
/// (`col`) along the rows ([.., tn], one element).
bool fitsShape(const Expr& f, bool col, int m, int n) {
  if (!f.type)
    return false;
  const std::vector<Dim>& d = f.type->dims;
  if (d.size() > 2)
    return false;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i].kind == Dim::Kind::One)
      continue;
    const bool last = i + 1 == d.size();
    if (d[i].kind != Dim::Kind::Tile)
      return false;
    if (col ? !(last && d[i].tile == n) : !(d.size() == 2 && i == 0 && d[i].tile == m))
      return false;
  }
  return true;
}

} // namespace

std::optional<KBlockScale> kBlockScale(const Expr& addend, int tileM, int tileN, int tileK,
                                       const std::function<const Expr*(int)>& let) {
  if (tileM < 0 || tileN < 0 || tileK < 0)
    return std::nullopt;
  FactorWalk walk(tileM, tileN, tileK, let);
  std::vector<const Expr*> leaves;
  if (!walk.leaves(&addend, leaves) || leaves.size() < 2)
    return std::nullopt;
  KBlockScale s;
  for (const Expr* l : leaves) {
    if (l->kind == ExprKind::Dot) {
      if (s.dot || l->operands.size() != 2)
        return std::nullopt;
      s.dot = l;
      continue;
    }
    Reads r;
    if (!walk.tree(*l, r) || (r.m && r.n))
      return std::nullopt;
    if (!fitsShape(*l, r.n, tileM, tileN))
      return std::nullopt;
    (r.n ? s.colFactors : s.rowFactors).push_back(l);
    if (r.nElements)
      s.colPerTile = false;
  }
  if (!s.dot)
    return std::nullopt;
  return s;
}

} // namespace helion::ir
