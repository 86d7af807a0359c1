//===- Equality.cpp - Structural equality and hashing ----------------------===//
//
// Compares every field of a node whatever its kind (fields a kind does not use hold
// their defaults), so a new ExprKind needs nothing here; a new field of Expr, Index
// or Stmt is added to both the equality and the hash.
//===----------------------------------------------------------------------===//
#include "helion/IR/Equality.h"

#include <cmath>
#include <functional>

namespace helion::ir {
namespace {

bool sameNumber(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool sameIndices(const std::vector<Index>& a, const std::vector<Index>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].tile != b[i].tile ||
        !structurallyEqual(a[i].value, b[i].value))
      return false;
  return true;
}

bool sameRefs(const std::vector<ExprRef>& a, const std::vector<ExprRef>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structurallyEqual(a[i], b[i]))
      return false;
  return true;
}

void mix(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

} // namespace

bool structurallyEqual(const Expr& a, const Expr& b) {
  if (&a == &b)
    return true;
  return a.kind == b.kind && sameNumber(a.value, b.value) && a.isInt == b.isInt &&
         a.param == b.param && a.var == b.var && a.tile == b.tile && a.attr == b.attr &&
         a.dim == b.dim && a.dim2 == b.dim2 && a.keepdim == b.keepdim &&
         a.zeroPadded == b.zeroPadded && a.mma == b.mma && a.eviction == b.eviction &&
         a.evictionEntry == b.evictionEntry && a.unary == b.unary &&
         a.binary == b.binary && a.reduce == b.reduce && a.castTo == b.castTo &&
         a.gatherAll == b.gatherAll && a.randRunTile == b.randRunTile && a.shape == b.shape &&
         sameIndices(a.indices, b.indices) &&
         sameRefs(a.operands, b.operands) && sameRefs(a.shapeSizes, b.shapeSizes);
}

bool structurallyEqual(const ExprRef& a, const ExprRef& b) {
  if (a == b)
    return true;
  return a && b && structurallyEqual(*a, *b);
}

bool structurallyEqual(const Stmt& a, const Stmt& b) {
  if (&a == &b)
    return true;
  if (a.kind != b.kind || a.var != b.var || a.param != b.param || a.gatherAll != b.gatherAll ||
      a.atomicAdd != b.atomicAdd || a.privateAtomic != b.privateAtomic ||
      a.dotCopied != b.dotCopied || a.hoisted != b.hoisted || a.staged != b.staged ||
      a.stages != b.stages || a.unroll != b.unroll || a.unrollEntry != b.unrollEntry ||
      a.targetDims != b.targetDims || a.tiles != b.tiles || a.grid != b.grid ||
      a.body.size() != b.body.size() ||
      !structurallyEqual(a.value, b.value) || !structurallyEqual(a.mask, b.mask) ||
      !sameIndices(a.indices, b.indices))
    return false;
  for (size_t i = 0; i < a.body.size(); ++i)
    if (!structurallyEqual(*a.body[i], *b.body[i]))
      return false;
  return true;
}

size_t structuralHash(const Expr& e) {
  size_t h = static_cast<size_t>(e.kind);
  // NaNs are equal to each other and 0.0 to -0.0: hash them alike.
  double v = std::isnan(e.value) ? NAN : e.value == 0 ? 0.0 : e.value;
  mix(h, std::hash<double>()(v));
  for (int field : {int(e.isInt), e.param, e.var, e.tile, int(e.attr), e.dim, e.dim2,
                    int(e.keepdim), int(e.zeroPadded), int(e.unary), int(e.binary), int(e.reduce),
                    e.castTo ? int(*e.castTo) : -1, int(e.gatherAll), int(e.eviction),
                    e.evictionEntry, e.randRunTile,
                    e.mma ? int(e.mma->a) * 16 + int(e.mma->b) * 4 + e.mma->stages * 64 + e.mma->early : -1})
    mix(h, std::hash<int>()(field));
  for (const Dim& d : e.shape)
    mix(h, static_cast<size_t>(d.kind) * 31 + static_cast<size_t>(d.tile + 1) * 7 +
               static_cast<size_t>(d.axis + 1));
  for (const Index& i : e.indices) {
    mix(h, static_cast<size_t>(i.kind) * 31 + static_cast<size_t>(i.tile + 1));
    mix(h, i.value ? structuralHash(*i.value) : 0);
  }
  for (const ExprRef& op : e.operands)
    mix(h, op ? structuralHash(*op) : 0);
  for (const ExprRef& s : e.shapeSizes)
    mix(h, s ? structuralHash(*s) : 1);
  return h;
}

} // namespace helion::ir
