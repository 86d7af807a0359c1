//===- RecognizeMatmul.cpp - Recognizing tensor-core matrix products -------===//
//
// The pattern of MatmulRecognizer.h: the grid loop, the K loop and its two operands,
// the accumulator and the epilogue after the loop, recorded as Kernel::matmul
// (helion/IR/TemplateMatch.h). The template's parameters are the template-plan pass's
// (Kernel::gemm, by helion/Config/TemplateRules.h).
//===----------------------------------------------------------------------===//
#include "MatmulRecognizer.h"

#include "helion/IR/DotShape.h"
#include "helion/IR/ScaledDot.h"

#include <functional>

namespace helion::ir {
namespace matmul {
namespace {

bool isZero(const ExprRef& e) { return e && e->kind == ExprKind::Const && e->value == 0; }

} // namespace

std::optional<MatmulMatch> Planner::run() {
  if (k_.body.size() != 1 || k_.body[0]->kind != StmtKind::For)
    return fail(k_.loc, "a kernel with hl::dot must have exactly one top-level tile loop");
  p_.grid = k_.body[0];
  // `grid`: the loop whose body is accumulator, K loop, epilogue: the grid loop,
  // or the column loop of a grouped GEMM.
  const Stmt* body = p_.grid.get();
  if (const Stmt* rows = ir::groupedMatmulRowLoop(k_)) {
    if (!planGroupedLoops(k_, *p_.grid, *rows, p_, d_))
      return std::nullopt;
    body = rows->body[0].get();
  } else {
    const Stmt& g = *p_.grid;
    if (g.tiles.size() != 2 && g.tiles.size() != 3)
      return fail(g.loc, "a tensor-core matmul needs a grid loop over [tm, tn] or, batched, "
                         "[tb, tm, tn]; found " + std::to_string(g.tiles.size()) + " tiles");
    const size_t first = g.tiles.size() - 2;
    if (first == 1)
      p_.tileB = g.tiles[0];
    p_.tileM = g.tiles[first];
    p_.tileN = g.tiles[first + 1];
  }
  const Stmt& grid = *body;
  if (const Expr* d = wrongRankDot())
    return fail(d->loc, std::string("a dot in a grid loop over ") +
                            (batched() ? "[tb, tm, tn] must be batched (3-D)"
                                       : "[tm, tn] must be 2-D"));
  // Lets, then the K loop. One let is the accumulator, `let %acc = full([tm, tn], 0, f32)`
  // (batched: [tb, tm, tn]), the variable the K loop assigns; the others (`auto bias =
  // b[tn];` before the loop) are values of the epilogue: they read nothing the K loop
  // writes, so they run first in the epilogue.
  size_t i = 0;
  std::vector<StmtRef> before;
  for (; i < grid.body.size() && grid.body[i]->kind == StmtKind::Let; ++i)
    before.push_back(grid.body[i]);
  if (i >= grid.body.size() || grid.body[i]->kind != StmtKind::For)
    return fail(i < grid.body.size() ? grid.body[i]->loc : grid.loc,
                "expected the K loop (for tk in hl::tile(k)) after the accumulator of a "
                "tensor-core matmul (and lets only before it)");
  const Stmt& loop = *grid.body[i];
  const Stmt* assign = nullptr;
  for (const StmtRef& s : loop.body)
    if (s->kind == StmtKind::Assign)
      assign = s.get();
  for (const StmtRef& s : before)
    if (assign && s->var == assign->var && s->value->kind == ExprKind::Full &&
        isZero(s->value->operands[0]))
      p_.accVar = s->var;
  if (p_.accVar < 0)
    return fail(before.empty() ? loop.loc : before[0]->loc,
                std::string("a tensor-core matmul needs its accumulator before the K loop, ") +
                    (batched() ? "hl::zeros({tb, tm, tn}, hl::f32)"
                               : "hl::zeros({tm, tn}, hl::f32)"));
  for (const StmtRef& s : before) {
    if (s->var == p_.accVar)
      continue;
    const int var = s->var;
    if (findExpr(loop, [var](const Expr& e) { return e.kind == ExprKind::Var && e.var == var; }))
      return fail(s->loc, "a value computed before the K loop of a tensor-core matmul may be "
                          "used only after it (in the epilogue)");
    if (!epilogueStmt(*s))
      return std::nullopt;
    p_.epilogue.push_back(s);
  }
  if (!kLoop(loop))
    return std::nullopt;
  for (++i; i < grid.body.size(); ++i) {
    if (!epilogueStmt(*grid.body[i]))
      return std::nullopt;
    p_.epilogue.push_back(grid.body[i]);
  }
  for (int t : {p_.tileB, grouped() ? -1 : p_.tileM, p_.tileN, p_.tileK})
    if (t >= 0 &&
        (!isZero(k_.tiles[t].begin) || k_.tiles[t].isGrid || k_.tiles[t].flatOfParam >= 0))
      return fail(k_.tiles[t].loc, "tile '" + k_.tiles[t].name +
                                       "' of a tensor-core matmul must be hl::tile(end) from 0");
  int stores = 0;
  for (const StmtRef& s : p_.epilogue)
    stores += s->kind == StmtKind::Store;
  if (stores == 0)
    return fail(grid.loc, "a tensor-core matmul must store its result");
  if (stores == 1)
    for (const StmtRef& s : p_.epilogue)
      if (s->kind == StmtKind::Store)
        p_.singleStoreParam = s->param;
  return p_;
}

ExprRef Planner::substituted(const Expr& e) const {
  if (e.kind == ExprKind::Var && lets_.count(e.var))
    return substituted(*lets_.at(e.var));
  auto out = std::make_shared<Expr>(e);
  for (ExprRef& op : out->operands)
    op = substituted(*op);
  for (Index& ix : out->indices)
    if (ix.value)
      ix.value = substituted(*ix.value);
  return out;
}

bool Planner::operand(const ExprRef& raw, bool isA) {
  const Expr* e = resolve(raw).get();
  const int rank = batched() ? 3 : 2;
  bool transposed = false;
  if (!isA && e->kind == ExprKind::Transpose && swapsLastTwo(e->dim, e->dim2, rank)) {
    e = resolve(e->operands[0]).get();
    transposed = true;
  }
  // A computed from its load (DotShape.h, prologueLoad): the template applies F to
  // each k-block of A; the load itself must be A's.
  if (isA && !grouped() && e->kind != ExprKind::Load)
    if (const Expr* load = prologueLoad(*e, [&](int var) -> const Expr* {
          auto it = lets_.find(var);
          return it == lets_.end() ? nullptr : it->second.get();
        })) {
      p_.aPrologue = substituted(*raw);
      p_.aStaged = prologueStagedTensor(*p_.aPrologue, load->param);
      e = load;
    }
  const int row = isA ? p_.tileM : transposed ? p_.tileN : p_.tileK;
  const int col = isA ? p_.tileK : transposed ? p_.tileK : p_.tileN;
  // Grouped: B is group g's matrix, b[g, tk, tn].
  const bool byGroup = grouped() && !isA;
  const size_t o = batched() || byGroup ? 1 : 0;
  if (e->kind != ExprKind::Load || e->gatherAll || e->indices.size() != o + 2 ||
      (batched() && !isTile(e->indices[0], p_.tileB)) ||
      (byGroup && !isGroupIndex(e->indices[0], p_)) || !isTile(e->indices[o], row) ||
      !isTile(e->indices[o + 1], col)) {
    const char* want = batched() ? (isA ? "x[tb, tm, tk]"
                                        : "y[tb, tk, tn] (or y[tb, tn, tk].transpose(1, 2))")
                       : byGroup ? "b[g, tk, tn] (or b[g, tn, tk].transpose(0, 1))"
                                 : (isA ? "x[tm, tk]" : "y[tk, tn] (or y[tn, tk].transpose(0, 1))");
    fail(raw->loc, std::string("the ") + (isA ? "first" : "second") +
                       " operand of a tensor-core hl::dot must be a load " + want + " of a " +
                       (batched() || byGroup ? "3-D" : "2-D") + " tensor");
    return false;
  }
  (isA ? p_.a : p_.b) = e->param;
  if (!isA)
    p_.bTransposed = transposed;
  return true;
}

bool Planner::kLoop(const Stmt& loop) {
  if (loop.tiles.size() != 1)
    return fail(loop.loc, "the K loop of a tensor-core matmul must tile one dim"), false;
  p_.tileK = loop.tiles[0];
  const Stmt* accumulate = nullptr;
  for (const StmtRef& s : loop.body) {
    if (s->kind == StmtKind::Let && !accumulate) {
      lets_[s->var] = s->value;
      continue;
    }
    if (s->kind == StmtKind::Assign && s->var == p_.accVar && !accumulate) {
      accumulate = s.get();
      continue;
    }
    return fail(s->loc, "the K loop of a tensor-core matmul may only accumulate hl::dot into "
                        "its accumulator (acc = hl::addmm(acc, x[tm, tk], y[tk, tn]))"),
           false;
  }
  if (!accumulate)
    return fail(loop.loc, "the K loop of a tensor-core matmul must update the accumulator"),
           false;
  ExprRef v = resolve(accumulate->value);
  ExprRef dot;
  if (v->kind == ExprKind::Dot && v->operands.size() == 3) {
    ExprRef acc = resolve(v->operands[2]);
    if (acc->kind == ExprKind::Var && acc->var == p_.accVar)
      dot = v;
  } else if (v->kind == ExprKind::Binary && v->binary == BinaryOp::Add) {
    for (int j = 0; j < 2 && !dot; ++j) {
      ExprRef acc = resolve(v->operands[j]), d = resolve(v->operands[1 - j]);
      if (acc->kind != ExprKind::Var || acc->var != p_.accVar)
        continue;
      if (d->kind == ExprKind::Dot && d->operands.size() == 2)
        dot = d;
      else if (!batched() && !grouped())
        dot = scaledDot(*d);
    }
  }
  if (!dot)
    return fail(accumulate->value->loc,
                "unsupported matrix product: expected acc = hl::addmm(acc, a, b), "
                "acc = hl::dot(a, b, acc), acc += hl::dot(a, b) or acc = acc + hl::dot(a, b) "
                "* S (S a row scale times a column scale per K block)"),
           false;
  if (!operand(dot->operands[0], true) || !operand(dot->operands[1], false))
    return false;
  if (p_.kScaled && p_.aPrologue)
    return fail(dot->operands[0]->loc, "a product scaled per K block needs A as its load "
                                       "x[tm, tk] (not computed from it)"),
           false;
  return true;
}

ExprRef Planner::scaledDot(const Expr& addend) {
  const std::function<const Expr*(int)> let = [&](int var) -> const Expr* {
    auto it = lets_.find(var);
    return it == lets_.end() ? nullptr : it->second.get();
  };
  std::optional<KBlockScale> s = kBlockScale(addend, p_.tileM, p_.tileN, p_.tileK, let);
  if (!s)
    return nullptr;
  // The factors' product with the K loop's lets substituted, also in subscripts
  // (`auto kb = tk.id(); sx[tm, kb]`): the functor prints it alone.
  auto product = [&](const std::vector<const Expr*>& fs) -> ExprRef {
    ExprRef out;
    for (const Expr* f : fs) {
      ExprRef e = substituted(*f);
      if (!out) {
        out = e;
        continue;
      }
      auto mul = std::make_shared<Expr>(*f);
      mul->kind = ExprKind::Binary;
      mul->binary = BinaryOp::Mul;
      mul->indices.clear();
      mul->operands = {out, e};
      mul->type = f->type;
      if (mul->type)
        mul->type->elem = ElemType::concrete(ScalarType::F32);
      out = mul;
    }
    return out;
  };
  p_.kScaled = true;
  p_.kScaleRow = product(s->rowFactors);
  p_.kScaleCol = product(s->colFactors);
  p_.kScaleColPerTile = s->colPerTile;
  return std::make_shared<Expr>(*s->dot);
}

bool Planner::epilogueExpr(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Const:
  case ExprKind::Param:
    return true;
  case ExprKind::Var:
    if (p_.groupLets.count(e.var))
      return fail(e.loc, "a grouped matmul's epilogue may not use the values of its group "
                         "loop (they are the row loop's bounds)"),
             false;
    return true;
  case ExprKind::TileIndex:
    if (e.tile == p_.tileM || e.tile == p_.tileN || (batched() && e.tile == p_.tileB))
      return true;
    break;
  case ExprKind::Load:
    if (!e.gatherAll) {
      for (const Index& ix : e.indices)
        if (!(isTile(ix, p_.tileM) || isTile(ix, p_.tileN) ||
              (batched() && isTile(ix, p_.tileB)) || isGroupIndex(ix, p_) ||
              ix.kind == Index::Kind::NewAxis))
          return fail(e.loc, batched() ? "a batched matmul epilogue may load only at tiles "
                                         "tb, tm and tn ([tb, tm, tn], [tn], ...)"
                             : grouped() ? "a grouped matmul epilogue may load only at tm, tn "
                                           "and the group g ([tm, tn], [g, tn], ...)"
                                       : "a matmul epilogue may load only at [tm, tn], [tm] "
                                         "or [tn]"),
                 false;
      return true;
    }
    break;
  case ExprKind::Full: {
    // A constant tile (hl::zeros / hl::full) is pointwise: the same value at
    // every element. Its dims must be tiles of the epilogue (or size one).
    for (const Dim& d : e.type ? e.type->dims : std::vector<Dim>{})
      if (!(d.kind == Dim::Kind::One ||
            (d.kind == Dim::Kind::Tile &&
             (d.tile == p_.tileM || d.tile == p_.tileN || (batched() && d.tile == p_.tileB)))))
        return fail(e.loc, std::string("a constant tile in a matmul epilogue must have the "
                                       "shape of the epilogue tile (") +
                               (batched() ? "{tb, tm, tn}" : "{tm, tn}") + " or a part of it)"),
               false;
    return epilogueExpr(*e.operands[0]);
  }
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Where:
  case ExprKind::Cast:
  case ExprKind::View: {
    for (const Index& ix : e.indices)
      if (ix.kind != Index::Kind::All && ix.kind != Index::Kind::NewAxis)
        return fail(e.loc, "unsupported subscript in a matmul epilogue"), false;
    for (const ExprRef& op : e.operands)
      if (!epilogueExpr(*op))
        return false;
    return true;
  }
  default: break;
  }
  return fail(e.loc, "only pointwise operations, scalars and loads at [tm, tn] may follow the K "
                     "loop of a tensor-core matmul"),
         false;
}

bool Planner::storeTarget(const Stmt& s) const {
  const size_t o = batched() ? 1 : 0;
  return !s.gatherAll && !s.mask && s.indices.size() == o + 2 &&
         (!batched() || isTile(s.indices[0], p_.tileB)) && isTile(s.indices[o], p_.tileM) &&
         isTile(s.indices[o + 1], p_.tileN);
}

bool Planner::epilogueStmt(const Stmt& s) {
  switch (s.kind) {
  case StmtKind::Let:
  case StmtKind::Assign:
    if (!epilogueExpr(*s.value))
      return false;
    break;
  case StmtKind::Store:
    if (s.atomicAdd)
      return fail(s.loc, "a tensor-core matmul cannot end in hl::atomic_add (split-K is not "
                         "lowered yet): store its result to out[tm, tn]"), false;
    if (!storeTarget(s))
      return fail(s.loc, batched() ? "a batched tensor-core matmul may store only to "
                                     "out[tb, tm, tn]"
                                   : "a tensor-core matmul may store only to out[tm, tn]"),
           false;
    if (!epilogueExpr(*s.value))
      return false;
    break;
  case StmtKind::For:
    return fail(s.loc, "a tensor-core matmul may not have a loop after its K loop"), false;
  }
  return true;
}

} // namespace matmul

std::optional<MatmulMatch> recognizeMatmul(const Kernel& kernel, DiagnosticEngine& diags) {
  return matmul::Planner(kernel, diags).run();
}

} // namespace helion::ir
