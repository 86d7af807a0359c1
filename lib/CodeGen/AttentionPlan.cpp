//===- AttentionPlan.cpp - Recognizing flash attention ---------------------===//
//
// The pattern of AttentionPlan.h, checked statement by statement with the key
// loop evaluated symbolically; then the config (AttentionConfig.cpp) picks the
// device-library kernel and its template arguments.
//===----------------------------------------------------------------------===//
#include "AttentionPlan.h"
#include "AttentionConfig.h"

#include "helion/IR/Equality.h"
#include "helion/IR/Mutator.h"
#include "helion/IR/Visitor.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace helion::codegen {
namespace {

using namespace ir;

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

/// A dot of 3-D operands (attention's q @ k^T and p @ v).
bool isBatchedDot(const Expr& e) {
  if (e.kind != ExprKind::Dot || e.operands.size() < 2)
    return false;
  if (e.type && e.type->dims.size() == 3)
    return true;
  const Expr& b = *e.operands[1];
  return (b.kind == ExprKind::Transpose && b.dim + b.dim2 == 3) ||
         (b.kind == ExprKind::Load && b.indices.size() == 3);
}

const Expr* firstBatchedDot(const std::vector<StmtRef>& body) { return findExpr(body, isBatchedDot); }

class Planner {
public:
  Planner(const Kernel& k, const config::Config& c, DiagnosticEngine& d) : k_(k), c_(c), d_(d) {}

  std::optional<AttentionPlan> run() {
    if (k_.body.size() != 1 || k_.body[0]->kind != StmtKind::For)
      return fail(k_.loc, "a kernel with a batched hl::dot must have exactly one top-level tile "
                          "loop (the flash-attention pattern, docs/attention.md)");
    const Stmt& grid = *k_.body[0];
    p_.grid = &grid;
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
    for (++i; i < grid.body.size(); ++i)
      if (!epilogueStmt(*grid.body[i]))
        return std::nullopt;
    int stores = 0;
    for (const Stmt* s : p_.epilogue)
      stores += s->kind == StmtKind::Store && s->indices.size() == 3;
    if (stores == 0)
      return fail(grid.loc, "flash attention must store its result to out[tb, tm, :]");
    if (!mapAttentionConfig(k_, c_, p_, d_))
      return std::nullopt;
    return p_;
  }

private:
  const Kernel& k_;
  const config::Config& c_;
  DiagnosticEngine& d_;
  AttentionPlan p_;
  std::map<int, ExprRef> pre_;            // grid-body lets before the key loop
  std::map<int, const Stmt*> preStmt_;
  std::map<int, ExprRef> env_;            // symbolic values inside the key loop
  std::map<int, const Stmt*> lastAssign_; // carried variable -> its last assignment
  std::set<int> epilogueVars_;            // lets after the key loop
  std::set<int> outputVars_;              // ... of those, the ones computed from acc

  std::nullopt_t fail(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return std::nullopt;
  }
  bool error(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return false;
  }

  bool isTile(const Index& ix, int tile) const {
    return ix.kind == Index::Kind::Tile && ix.tile == tile;
  }

  /// `t[tb, rows, :]` of a 3-D tensor: its param, or -1.
  int load3(const ExprRef& e, int rows) const {
    if (e->kind != ExprKind::Load || e->gatherAll || e->indices.size() != 3 ||
        !isTile(e->indices[0], p_.tileB) || !isTile(e->indices[1], rows) ||
        e->indices[2].kind != Index::Kind::All)
      return -1;
    return e->param;
  }

  bool prologueStmt(const Stmt& s) {
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

  /// Substitutes the loop's current symbolic values (and the prologue's q tile).
  class Substitute : public IRMutator {
  public:
    explicit Substitute(const Planner& p) : p_(p) {}
    using IRMutator::mutate;
    ExprRef mutate(const ExprRef& e) override {
      if (e->kind != ExprKind::Var)
        return mutateChildren(e);
      if (p_.env_.count(e->var))
        return p_.env_.at(e->var);
      if (p_.pre_.count(e->var) && p_.pre_.at(e->var)->kind == ExprKind::Load)
        return p_.pre_.at(e->var);
      return e;
    }

  private:
    const Planner& p_;
  };
  ExprRef subst(const ExprRef& e) const { return Substitute(*this).mutate(e); }

  bool keyLoopBody(const Stmt& loop) {
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

  /// S: pointwise ops, scalars and exactly one dot(q[tb, tm, :], k[tb, tn, :]^T).
  bool scoreExpr(const ExprRef& e) {
    switch (e->kind) {
    case ExprKind::Const:
    case ExprKind::Param: return true;
    case ExprKind::Dot: {
      if (p_.dot)
        return error(e->loc, "the attention score may contain only one q k^T product");
      p_.dot = e.get();
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

  /// `t.index()` of tile `tile` under views that only add axes: true.
  static bool isIndexOf(const ExprRef& e, int tile) {
    ExprRef x = e;
    while (x->kind == ExprKind::View)
      x = x->operands[0];
    return x->kind == ExprKind::TileIndex && x->tile == tile;
  }

  /// Whether S is where(tm.index() >= tn.index(), S', -inf) (or tn <= tm), the causal
  /// mask: every key past its query row scores -inf, so key blocks past the diagonal
  /// need not be read.
  bool causalMask(const ExprRef& e) const {
    if (e->kind != ExprKind::Where || !isConst(e->operands[2], -INFINITY))
      return false;
    const ExprRef& c = e->operands[0];
    if (c->kind != ExprKind::Binary)
      return false;
    const ExprRef &a = c->operands[0], &b = c->operands[1];
    return (c->binary == BinaryOp::Ge && isIndexOf(a, p_.tileM) && isIndexOf(b, p_.tileN)) ||
           (c->binary == BinaryOp::Le && isIndexOf(a, p_.tileN) && isIndexOf(b, p_.tileM));
  }

  bool checkInits() {
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

  bool epilogueValue(const ExprRef& e) {
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

  /// Whether `e` reads acc (directly or through an epilogue let that does).
  bool usesOutput(const Expr& e) const {
    if (e.kind == ExprKind::Var && (e.var == p_.accVar || outputVars_.count(e.var)))
      return true;
    for (const ExprRef& op : e.operands)
      if (usesOutput(*op))
        return true;
    return false;
  }

  bool epilogueStmt(const Stmt& s) {
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
    p_.epilogue.push_back(&s);
    return true;
  }
};

} // namespace

bool containsBatchedDot(const Kernel& kernel) {
  return firstBatchedDot(kernel.body) != nullptr;
}

std::optional<AttentionPlan> planAttention(const Kernel& kernel, const config::Config& config,
                                           DiagnosticEngine& diags) {
  return Planner(kernel, config, diags).run();
}

} // namespace helion::codegen
