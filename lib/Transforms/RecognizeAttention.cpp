//===- RecognizeAttention.cpp - Recognizing flash attention ---------------===//
//
// The pattern of AttentionRecognizer.h, checked statement by statement: the grid loop,
// the prologue, the accumulators' initial values and the epilogue here, the key
// loop in RecognizeAttentionKeyLoop.cpp. The device-library
// kernel and its template arguments are the template-plan pass's (Kernel::flash, by
// helion/Config/TemplateRules.h).
//===----------------------------------------------------------------------===//
#include "AttentionRecognizer.h"

#include "helion/IR/DotShape.h"
#include "helion/IR/Equality.h"
#include "helion/IR/Mutator.h"
#include "helion/IR/Visitor.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace helion::ir {
namespace attention {

bool isConst(const ExprRef& e, double v) {
  return e && e->kind == ExprKind::Const && e->value == v;
}

bool isVar(const ExprRef& e, int var) { return e && e->kind == ExprKind::Var && e->var == var; }

/// `x[:, :, newaxis]` of a 2-D value: returns x, or null.
ExprRef unsqueezed(const ExprRef& e) {
  if (e->kind != ExprKind::View || e->indices.size() != 3 ||
      e->indices[0].kind != Index::Kind::All || e->indices[1].kind != Index::Kind::All ||
      e->indices[2].kind != Index::Kind::NewAxis)
    return nullptr;
  return e->operands[0];
}

/// The operands of a commutative binary `op` as (x, y) with pred(x) true, or false.
bool commuted(const ExprRef& e, BinaryOp op, const std::function<bool(const ExprRef&)>& pred,
              ExprRef& x, ExprRef& y) {
  if (e->kind != ExprKind::Binary || e->binary != op)
    return false;
  for (int i = 0; i < 2; ++i)
    if (pred(e->operands[i])) {
      x = e->operands[i];
      y = e->operands[1 - i];
      return true;
    }
  return false;
}

const Expr* firstBatchedDot(const std::vector<StmtRef>& body) { return findExpr(body, isBatchedDot); }

std::optional<AttentionMatch> Planner::run() {
  if (k_.body.size() != 1 || k_.body[0]->kind != StmtKind::For)
    return fail(k_.loc, "a kernel with a batched hl::dot must have exactly one top-level tile "
                        "loop (the flash-attention pattern, docs/attention.md)");
  const Stmt& grid = *k_.body[0];
  p_.grid = k_.body[0];
  const Stmt* keyLoop = nullptr;
  for (const StmtRef& s : grid.body)
    if (s->kind == StmtKind::For) {
      if (keyLoop)
        return fail(s->loc, "flash attention has one key loop; found a second loop");
      keyLoop = s.get();
    }
  if (grid.tiles.size() != 2 || !keyLoop || keyLoop->tiles.size() != 1)
    return fail(firstBatchedDot(k_.body) ? firstBatchedDot(k_.body)->loc : grid.loc, "batched (3-D) hl::dot is not supported by the CUDA backend yet "
                          "outside flash attention: a grid loop over tiles [tb, tm] (tb of "
                          "block size 1) with one key loop over tn (docs/attention.md)");
  p_.tileB = grid.tiles[0];
  p_.tileM = grid.tiles[1];
  p_.tileN = keyLoop->tiles[0];
  const BlockSizeDecl& bb = k_.blockSizes.at(k_.tiles[p_.tileB].blockSize);
  if (!bb.fixed || *bb.fixed != 1)
    return fail(k_.tiles[p_.tileB].loc, "the batch tile '" + k_.tiles[p_.tileB].name +
                                            "' of flash attention must have block size 1 "
                                            "(hl::block_size({1, ...}))");
  for (int t : {p_.tileB, p_.tileM, p_.tileN})
    if (!isConst(k_.tiles[t].begin, 0) || k_.tiles[t].isGrid || k_.tiles[t].flatOfParam >= 0)
      return fail(k_.tiles[t].loc,
                  "tile '" + k_.tiles[t].name + "' of flash attention must be hl::tile(end) from 0");
  size_t i = 0;
  for (; grid.body[i].get() != keyLoop; ++i)
    if (!prologueStmt(*grid.body[i]))
      return std::nullopt;
  if (!keyLoopBody(*keyLoop) || !checkInits())
    return std::nullopt;
  for (++i; i < grid.body.size(); ++i) {
    if (!epilogueStmt(*grid.body[i]))
      return std::nullopt;
    p_.epilogue.push_back(grid.body[i]);
  }
  int stores = 0;
  for (const StmtRef& s : p_.epilogue)
    stores += s->kind == StmtKind::Store && s->indices.size() == 3;
  if (stores == 0)
    return fail(grid.loc, "flash attention must store its result to out[tb, tm, :]");
  return p_;
}

bool Planner::prologueStmt(const Stmt& s) {
  if (s.kind != StmtKind::Let)
    return error(s.loc, "only the accumulators (hl::full / hl::zeros) and the q tile may "
                        "precede the key loop of flash attention");
  ExprRef v = s.value;
  if (v->kind == ExprKind::Full || load3(v, p_.tileM) >= 0) {
    pre_[s.var] = v;
    preStmt_[s.var] = &s;
    return true;
  }
  return error(v->loc, "only the accumulators (hl::full / hl::zeros) and the q tile "
                       "q[tb, tm, hl::all] may precede the key loop of flash attention");
}

bool Planner::checkInits() {
  struct Want {
    int var;
    double value;
    size_t rank;
    const char* what;
  };
  for (const Want& w : {Want{p_.maxVar, -INFINITY, 2, "mi = hl::full({tb, tm}, -INFINITY, hl::f32)"},
                        Want{p_.sumVar, 0, 2, "li = hl::zeros({tb, tm}, hl::f32)"},
                        Want{p_.accVar, 0, 3, "acc = hl::zeros({tb, tm, d}, hl::f32)"}}) {
    const ExprRef& init = pre_.at(w.var);
    const Stmt& s = *preStmt_.at(w.var);
    bool ok = init->kind == ExprKind::Full && init->operands.size() == 1 &&
              init->operands[0]->kind == ExprKind::Const &&
              init->operands[0]->value == w.value && init->shape.size() == w.rank &&
              init->shape[0].kind == Dim::Kind::Tile && init->shape[0].tile == p_.tileB &&
              init->shape[1].kind == Dim::Kind::Tile && init->shape[1].tile == p_.tileM &&
              (!init->castTo || *init->castTo == ScalarType::F32);
    if (ok && w.rank == 3) {
      ok = init->shapeSizes.size() == 1;
      if (ok)
        p_.headDim = init->shapeSizes[0];
      ok = ok && (p_.headDim->kind == ExprKind::Const ||
                  (p_.headDim->kind == ExprKind::Param &&
                   k_.params.at(p_.headDim->param).specialized));
      if (!ok)
        return error(s.loc, "the head dim of flash attention must be a compile-time constant "
                            "(hl::specialize(q.size(2)))");
    }
    if (!ok)
      return error(s.loc, std::string("flash attention expects ") + w.what);
  }
  return true;
}

bool Planner::epilogueValue(const ExprRef& e) {
  switch (e->kind) {
  case ExprKind::Const:
  case ExprKind::Param: return true;
  case ExprKind::Var:
    if (e->var == p_.accVar || e->var == p_.sumVar || e->var == p_.maxVar ||
        epilogueVars_.count(e->var))
      return true;
    return error(e->loc, "the epilogue of flash attention may read acc, li, mi and its own "
                         "values only");
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Where:
  case ExprKind::Cast:
  case ExprKind::View:
    for (const Index& ix : e->indices)
      if (ix.kind != Index::Kind::All && ix.kind != Index::Kind::NewAxis)
        return error(e->loc, "unsupported subscript in the epilogue of flash attention");
    for (const ExprRef& op : e->operands)
      if (!epilogueValue(op))
        return false;
    return true;
  default: break;
  }
  return error(e->loc, "only pointwise operations on acc, li, mi and scalars may follow the "
                       "key loop of flash attention");
}

bool Planner::usesOutput(const Expr& e) const {
  if (e.kind == ExprKind::Var && (e.var == p_.accVar || outputVars_.count(e.var)))
    return true;
  for (const ExprRef& op : e.operands)
    if (usesOutput(*op))
      return true;
  return false;
}

bool Planner::epilogueStmt(const Stmt& s) {
  if (s.kind == StmtKind::For)
    return error(s.loc, "flash attention may not have a loop after its key loop");
  if (s.kind == StmtKind::Assign && s.var != p_.accVar && s.var != p_.sumVar &&
      s.var != p_.maxVar && !epilogueVars_.count(s.var))
    return error(s.loc, "the epilogue of flash attention may assign acc, li, mi and its own "
                        "values only");
  const bool rowStore = s.kind == StmtKind::Store && s.indices.size() == 2;
  if (s.kind == StmtKind::Store &&
      (s.atomicAdd || s.gatherAll || s.mask || (s.indices.size() != 3 && !rowStore) ||
       !isTile(s.indices[0], p_.tileB) || !isTile(s.indices[1], p_.tileM) ||
       (!rowStore && s.indices[2].kind != Index::Kind::All)))
    return error(s.loc, "flash attention may store only to out[tb, tm, hl::all] and to "
                        "per-row results such as lse[tb, tm]");
  if (!epilogueValue(s.value))
    return false;
  if (rowStore && usesOutput(*s.value))
    return error(s.loc, "a per-row result of flash attention (lse[tb, tm]) may use li and mi "
                        "only, not acc");
  if (s.kind == StmtKind::Let) {
    epilogueVars_.insert(s.var);
    if (usesOutput(*s.value))
      outputVars_.insert(s.var);
  }
  return true;
}

} // namespace attention

using attention::Planner;

std::optional<AttentionMatch> recognizeAttention(const Kernel& kernel, DiagnosticEngine& diags) {
  return Planner(kernel, diags).run();
}

} // namespace helion::ir
