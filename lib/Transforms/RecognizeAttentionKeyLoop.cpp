//===- RecognizeAttentionKeyLoop.cpp - The key loop of flash attention ----===//
//
// The Planner's (AttentionRecognizer.h) check of the key loop: its lets and the
// accumulators' assignments evaluated symbolically, each carried value matched to
// the online-softmax recurrence of AttentionRecognizer.h, the score S and its causal mask.
//===----------------------------------------------------------------------===//
#include "AttentionRecognizer.h"

#include "helion/IR/Equality.h"
#include "helion/IR/Visitor.h"

#include <cmath>

namespace helion::ir::attention {

bool Planner::keyLoopBody(const Stmt& loop) {
  for (const StmtRef& s : loop.body) {
    if (s->kind == StmtKind::Let) {
      env_[s->var] = subst(s->value);
    } else if (s->kind == StmtKind::Assign) {
      if (!pre_.count(s->var) || pre_.at(s->var)->kind != ExprKind::Full)
        return error(s->loc, "the key loop of flash attention may assign only the "
                             "accumulators declared before it");
      env_[s->var] = subst(s->value);
      lastAssign_[s->var] = s.get();
    } else {
      return error(s->loc, "the key loop of flash attention may only compute values and "
                           "update its accumulators (no stores or nested loops)");
    }
  }
  // The output accumulator: the variable whose next value is a 3-operand dot.
  for (const auto& [var, stmt] : lastAssign_) {
    const ExprRef& e = env_.at(var);
    if (e->kind == ExprKind::Dot && e->operands.size() == 3)
      p_.accVar = var;
  }
  if (p_.accVar < 0)
    return error(loop.loc, "the key loop of flash attention must update its output as "
                           "acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha)");
  const Stmt& accStmt = *lastAssign_.at(p_.accVar);
  const ExprRef& next = env_.at(p_.accVar);
  // acc * alpha[:, :, newaxis]
  ExprRef accOld, alphaView;
  if (!commuted(next->operands[2], BinaryOp::Mul,
                [&](const ExprRef& x) { return isVar(x, p_.accVar); }, accOld, alphaView) ||
      !unsqueezed(alphaView))
    return error(accStmt.loc, "flash attention must rescale its output by the softmax "
                              "correction before adding p @ v: acc = acc * alpha[:, :, "
                              "hl::newaxis] with alpha = hl::exp(mi - mi_next)");
  ExprRef alpha = unsqueezed(alphaView);
  // alpha = exp(mi - mn)
  if (alpha->kind != ExprKind::Unary || alpha->unary != UnaryOp::Exp ||
      alpha->operands[0]->kind != ExprKind::Binary ||
      alpha->operands[0]->binary != BinaryOp::Sub ||
      alpha->operands[0]->operands[0]->kind != ExprKind::Var)
    return error(accStmt.loc, "the softmax correction of flash attention must be "
                              "alpha = hl::exp(mi - mi_next)");
  p_.maxVar = alpha->operands[0]->operands[0]->var;
  ExprRef maxNext = alpha->operands[0]->operands[1];
  // mn = maximum(mi, amax(S, 2))
  ExprRef miOld, amax;
  if (!commuted(maxNext, BinaryOp::Maximum,
                [&](const ExprRef& x) { return isVar(x, p_.maxVar); }, miOld, amax) ||
      amax->kind != ExprKind::Reduce || amax->reduce != ReduceOp::Max || amax->dim != 2 ||
      amax->keepdim)
    return error(accStmt.loc, "the running max of flash attention must be "
                              "mi_next = hl::maximum(mi, hl::amax(s, 2))");
  if (!lastAssign_.count(p_.maxVar) || !structurallyEqual(env_.at(p_.maxVar), maxNext))
    return error(lastAssign_.count(p_.maxVar) ? lastAssign_.at(p_.maxVar)->loc : loop.loc,
                 "the running max of flash attention must be carried to the next key "
                 "block: mi = mi_next at the end of the loop");
  p_.score = amax->operands[0];
  if (!scoreExpr(p_.score))
    return false;
  p_.causal = causalMask(p_.score);
  p_.scoreFactor = linearFactor(p_.causal ? p_.score->operands[1] : p_.score);
  // p = exp(S - mn[:, :, newaxis]), the first operand of the dot, cast to v's dtype.
  auto isP = [&](const ExprRef& e) {
    if (e->kind != ExprKind::Unary || e->unary != UnaryOp::Exp)
      return false;
    const ExprRef& d = e->operands[0];
    return d->kind == ExprKind::Binary && d->binary == BinaryOp::Sub &&
           structurallyEqual(d->operands[0], p_.score) && unsqueezed(d->operands[1]) &&
           structurallyEqual(unsqueezed(d->operands[1]), maxNext);
  };
  p_.v = load3(next->operands[1], p_.tileN);
  if (p_.v < 0)
    return error(next->operands[1]->loc,
                 "the second operand of p @ v must be the load v[tb, tn, hl::all]");
  const ExprRef& pCast = next->operands[0];
  if (pCast->kind != ExprKind::Cast || pCast->castTo || !isP(pCast->operands[0]))
    return error(accStmt.loc, "flash attention must multiply p = hl::exp(s - mi_next[:, :, "
                              "hl::newaxis]), converted with p.to(v.dtype()), by v");
  if (pCast->param != p_.v && pCast->param != p_.q && pCast->param != p_.k)
    return error(pCast->loc, "p must be converted to the dtype of v (p.to(v.dtype()))");
  // li = li * alpha + sum(p, 2)
  ExprRef prod, rowSum, liOld, alpha2;
  bool sumOk = false;
  for (const auto& [var, stmt] : lastAssign_) {
    if (var == p_.accVar || var == p_.maxVar)
      continue;
    p_.sumVar = var;
    const ExprRef& e = env_.at(var);
    sumOk = commuted(e, BinaryOp::Add,
                     [&](const ExprRef& x) { return x->kind == ExprKind::Binary; }, prod,
                     rowSum) &&
            commuted(prod, BinaryOp::Mul, [&](const ExprRef& x) { return isVar(x, var); },
                     liOld, alpha2) &&
            structurallyEqual(alpha2, alpha) && rowSum->kind == ExprKind::Reduce &&
            rowSum->reduce == ReduceOp::Sum && rowSum->dim == 2 && !rowSum->keepdim &&
            isP(rowSum->operands[0]);
    if (!sumOk)
      return error(stmt->loc, "the running sum of flash attention must be "
                              "li = li * alpha + hl::sum(p, 2)");
  }
  if (p_.sumVar < 0)
    return error(loop.loc, "flash attention must keep a running sum li = li * alpha + "
                           "hl::sum(p, 2)");
  if (lastAssign_.size() != 3)
    return error(loop.loc, "flash attention carries exactly three accumulators (mi, li, acc)");
  return true;
}

bool Planner::scoreExpr(const ExprRef& e) {
  switch (e->kind) {
  case ExprKind::Const:
  case ExprKind::Param: return true;
  case ExprKind::Dot: {
    if (p_.dot)
      return error(e->loc, "the attention score may contain only one q k^T product");
    p_.dot = e;
    if (e->operands.size() != 2)
      return error(e->loc, "the attention score q @ k^T takes no accumulator");
    p_.q = load3(e->operands[0], p_.tileM);
    if (p_.q < 0)
      return error(e->operands[0]->loc, "the first operand of the attention score must be "
                                        "the q tile q[tb, tm, hl::all]");
    const ExprRef& kt = e->operands[1];
    if (kt->kind != ExprKind::Transpose || kt->dim + kt->dim2 != 3 || kt->dim * kt->dim2 != 2 ||
        (p_.k = load3(kt->operands[0], p_.tileN)) < 0)
      return error(kt->loc, "the second operand of the attention score must be "
                            "k[tb, tn, hl::all].transpose(1, 2)");
    return true;
  }
  case ExprKind::TileIndex:
    if (e->tile != p_.tileM && e->tile != p_.tileN)
      return error(e->loc, "the attention score may use the indices of tm (query rows) and "
                           "tn (keys) only");
    return true;
  case ExprKind::View:
    for (const Index& ix : e->indices)
      if (ix.kind != Index::Kind::All && ix.kind != Index::Kind::NewAxis)
        return error(e->loc, "unsupported subscript in the attention score");
    [[fallthrough]];
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Where:
  case ExprKind::Cast:
    for (const ExprRef& op : e->operands)
      if (!scoreExpr(op))
        return false;
    if (e->kind == ExprKind::Cast && e->castTo && *e->castTo != ScalarType::F32)
      return error(e->loc, "the attention score is computed in f32; no casts to other types");
    return true;
  default: break;
  }
  return error(e->loc, "the attention score may use only pointwise operations, scalars and "
                       "the indices of tm and tn on hl::dot(q, k^T) (no loads, reductions or "
                       "other tiles)");
}

bool Planner::isIndexOf(const ExprRef& e, int tile) {
  ExprRef x = e;
  while (x->kind == ExprKind::View)
    x = x->operands[0];
  return x->kind == ExprKind::TileIndex && x->tile == tile;
}

bool Planner::causalMask(const ExprRef& e) const {
  if (e->kind != ExprKind::Where || !isConst(e->operands[2], -INFINITY))
    return false;
  const ExprRef& c = e->operands[0];
  if (c->kind != ExprKind::Binary)
    return false;
  const ExprRef &a = c->operands[0], &b = c->operands[1];
  return (c->binary == BinaryOp::Ge && isIndexOf(a, p_.tileM) && isIndexOf(b, p_.tileN)) ||
         (c->binary == BinaryOp::Le && isIndexOf(a, p_.tileN) && isIndexOf(b, p_.tileM));
}

ExprRef Planner::linearFactor(const ExprRef& e) const {
  if (e->kind != ExprKind::Binary || e->binary != BinaryOp::Mul)
    return nullptr;
  auto free = [](const ExprRef& x) {
    return !findExpr(*x, [](const Expr& y) {
      return y.kind == ExprKind::Dot || y.kind == ExprKind::TileIndex;
    });
  };
  for (int i = 0; i < 2; ++i)
    if (e->operands[i]->kind == ExprKind::Dot && free(e->operands[1 - i]))
      return e->operands[1 - i];
  return nullptr;
}

} // namespace helion::ir::attention
