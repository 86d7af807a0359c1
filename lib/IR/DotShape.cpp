//===- DotShape.cpp - Which lowering a kernel's hl::dot takes --------------===//
#include "helion/IR/DotShape.h"
#include "helion/IR/ScaledDot.h"
#include "helion/IR/Visitor.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace helion::ir {
namespace {

int countDots(const std::vector<StmtRef>& body) {
  int n = 0;
  walkExprs(body, [&](const Expr& e) { n += e.kind == ExprKind::Dot; });
  return n;
}

/// The dot of `loop`'s body (its only one), with the lets of that body.
const Expr* loopDot(const Stmt& loop, std::map<int, const Expr*>& lets) {
  const Expr* dot = nullptr;
  for (const StmtRef& s : loop.body) {
    if (s->kind == StmtKind::Let)
      lets[s->var] = s->value.get();
    if (s->value)
      if (const Expr* d = findExpr(*s->value, [](const Expr& e) { return e.kind == ExprKind::Dot; }))
        dot = d;
  }
  return dot;
}

/// A load, possibly transposed, seen through the loop's lets (hoist-blocks names them).
bool isLoadOperand(const Expr* e, const std::map<int, const Expr*>& lets) {
  for (int depth = 0; e && depth < 8; ++depth) {
    if (e->kind == ExprKind::Var) {
      auto it = lets.find(e->var);
      e = it == lets.end() ? nullptr : it->second;
    } else if (e->kind == ExprKind::Transpose) {
      e = e->operands[0].get();
    } else {
      return e->kind == ExprKind::Load;
    }
  }
  return false;
}

/// F of prologueLoad below: pointwise over scalars, constants and loads (collected in
/// `loads`, classified by the caller). Lets are followed, so lets that name one another
/// many times grow the tree: past kMaxPrologueNodes it is not taken.
bool prologueTree(const Expr& e, const std::function<const Expr*(int)>& let,
                  std::vector<const Expr*>& loads, int& nodes) {
  if (++nodes > kMaxPrologueNodes)
    return false;
  switch (e.kind) {
  case ExprKind::Const:
  case ExprKind::Param: return true;
  case ExprKind::TileIndex: // classified by the caller with the loads: A's row or K tile
    loads.push_back(&e);
    return true;
  case ExprKind::Var: {
    const Expr* v = let(e.var);
    return v && prologueTree(*v, let, loads, nodes);
  }
  case ExprKind::Load:
    if (e.gatherAll || !e.operands.empty())
      return false;
    for (const Index& ix : e.indices)
      if (ix.kind != Index::Kind::Tile)
        return false;
    loads.push_back(&e);
    return true;
  case ExprKind::Full: return isConstantTile(e);
  default:
    return pointwiseOperands(
        e, [&](const Expr& op) { return prologueTree(op, let, loads, nodes); });
  }
}

bool sameSubscripts(const Expr& a, const Expr& b) {
  return a.param == b.param && a.indices.size() == b.indices.size() &&
         std::equal(a.indices.begin(), a.indices.end(), b.indices.begin(),
                    [](const Index& x, const Index& y) { return x.tile == y.tile; });
}

/// `lets` as prologueLoad's resolver.
std::function<const Expr*(int)> letsOf(const std::map<int, const Expr*>& lets) {
  return [&lets](int var) -> const Expr* {
    auto it = lets.find(var);
    return it == lets.end() ? nullptr : it->second;
  };
}

/// Whether `loop` adds its dot into an accumulator as the templates do: lets, then one
/// `acc = hl::dot(a, b, acc)` or `acc = acc + hl::dot(a, b)` (seen through the lets),
/// and nothing else; or, when the output tiles `tileM` and `tileN` are given (a 2-D
/// matmul), `acc = acc + hl::dot(a, b) * S` with S split by kBlockScale (ScaledDot.h:
/// `scaled` is set). A dot transformed otherwise before it is added is the general
/// lowering's.
bool accumulatesDot(const Stmt& loop, const std::map<int, const Expr*>& lets, int tileM = -1,
                    int tileN = -1, bool* scaled = nullptr) {
  const Stmt* assign = nullptr;
  for (const StmtRef& s : loop.body) {
    if (s->kind == StmtKind::Let && !assign) // lets before the accumulate only
      continue;
    if (s->kind != StmtKind::Assign || assign)
      return false;
    assign = s.get();
  }
  if (!assign || !assign->value)
    return false;
  auto resolve = [&](const Expr* e) {
    for (int depth = 0; e && e->kind == ExprKind::Var && depth < 8; ++depth) {
      auto it = lets.find(e->var);
      if (it == lets.end())
        break;
      e = it->second;
    }
    return e;
  };
  auto isAcc = [&](const Expr* e) {
    e = resolve(e);
    return e && e->kind == ExprKind::Var && e->var == assign->var;
  };
  const Expr* v = resolve(assign->value.get());
  if (v && v->kind == ExprKind::Dot && v->operands.size() == 3)
    return isAcc(v->operands[2].get());
  if (v && v->kind == ExprKind::Binary && v->binary == BinaryOp::Add && v->operands.size() == 2)
    for (int j = 0; j < 2; ++j) {
      const Expr* d = resolve(v->operands[1 - j].get());
      if (!isAcc(v->operands[j].get()) || !d)
        continue;
      if (d->kind == ExprKind::Dot && d->operands.size() == 2)
        return true;
      if (tileM >= 0 && loop.tiles.size() == 1 &&
          kBlockScale(*d, tileM, tileN, loop.tiles[0], letsOf(lets))) {
        if (scaled)
          *scaled = true;
        return true;
      }
    }
  return false;
}

/// Whether `body` (a grid loop's, or the grouped form's innermost output loop's) holds
/// one inner loop with the kernel's one dot, of two tensor loads (A may be computed
/// from its load when `allowPrologue`: prologueLoad). `tileM`, `tileN`: the output
/// tiles of a 2-D matmul, whose dot may be scaled per K block (accumulatesDot; then
/// `scaled` is set and A must be its load), else -1.
bool bodyHasMatmulShape(const std::vector<StmtRef>& body, bool allowPrologue, int tileM = -1,
                        int tileN = -1, bool* scaled = nullptr) {
  for (const StmtRef& s : body) {
    if (s->kind != StmtKind::For || countDots(s->body) != 1)
      continue;
    // The one dot sits in an inner loop of the grid loop's own body; its operands
    // are tensor loads (a dot of other computed blocks is the general lowering's).
    std::map<int, const Expr*> lets;
    const Expr* dot = loopDot(*s, lets);
    bool kScaled = false;
    const bool ok =
        dot && dot->operands.size() >= 2 && accumulatesDot(*s, lets, tileM, tileN, &kScaled) &&
        (isLoadOperand(dot->operands[0].get(), lets) ||
         (allowPrologue && !kScaled && prologueLoad(*dot->operands[0], letsOf(lets)))) &&
        isLoadOperand(dot->operands[1].get(), lets);
    if (ok && scaled)
      *scaled = kScaled;
    return ok;
  }
  return false;
}

/// The output tiles (tm, tn) of a 2-D grid loop, else (-1, -1).
std::pair<int, int> outputTiles(const Stmt& grid) {
  if (grid.tiles.size() != 2)
    return {-1, -1};
  return {grid.tiles[0], grid.tiles[1]};
}

} // namespace

bool isConstantTile(const Expr& e) {
  return e.kind == ExprKind::Full && e.operands.size() == 1 &&
         (e.operands[0]->kind == ExprKind::Const || e.operands[0]->kind == ExprKind::Param);
}

bool pointwiseOperands(const Expr& e, const std::function<bool(const Expr&)>& operand) {
  switch (e.kind) {
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Where:
  case ExprKind::Cast:
  case ExprKind::View:
    for (const Index& ix : e.indices)
      if (ix.kind != Index::Kind::All && ix.kind != Index::Kind::NewAxis)
        return false;
    for (const ExprRef& op : e.operands)
      if (!op || !operand(*op))
        return false;
    return true;
  default: return false;
  }
}

const Expr* prologueLoad(const Expr& operand, const std::function<const Expr*(int)>& let) {
  const Expr* e = &operand;
  for (int depth = 0; e && e->kind == ExprKind::Var && depth < 8; ++depth)
    e = let(e->var);
  if (!e || e->kind == ExprKind::Load || e->kind == ExprKind::Transpose || !e->type)
    return nullptr;
  std::vector<const Expr*> loads;
  int nodes = 0;
  const size_t rank = e->type->dims.size();
  if (!prologueTree(*e, let, loads, nodes) || (rank != 2 && rank != 3))
    return nullptr;
  // A's load: a load over the operand's rank of x's dtype; every load of x is that one
  // site. Tile indices: of A's K tile, or (2-D only) of its row tile. The others: (2-D
  // dots) loads of other tensors at A's own subscripts (`y[tm, tk]`), and 1-D loads of
  // other tensors, vectors along A's K (`s[tk]`) or (2-D only) along its rows (`s[tm]`).
  const Expr* a = nullptr;
  for (const Expr* l : loads)
    if (l->kind == ExprKind::Load && l->indices.size() == rank &&
        e->type->elem == ElemType::ofParam(l->param)) {
      a = l;
      break;
    }
  if (!a)
    return nullptr;
  const int rowTile = a->indices[rank - 2].tile, kTile = a->indices[rank - 1].tile;
  for (const Expr* l : loads) {
    if (l->kind == ExprKind::TileIndex) { // `tk.index()`, (2-D) `tm.index()`
      if (l->tile != kTile && !(rank == 2 && l->tile == rowTile))
        return nullptr;
      continue;
    }
    if (l->param == a->param) {
      if (!sameSubscripts(*a, *l))
        return nullptr;
      continue;
    }
    if (l->indices.size() == rank) {
      if (rank != 2 || l->indices[0].tile != rowTile || l->indices[1].tile != kTile)
        return nullptr;
      continue;
    }
    if (l->indices.size() != 1)
      return nullptr;
    const int t = l->indices[0].tile;
    if (t != kTile && !(rank == 2 && t == rowTile))
      return nullptr;
  }
  return a;
}

int prologueStagedTensor(const Expr& f, int a, const std::function<const Expr*(int)>& let) {
  std::vector<const Expr*> loads;
  int nodes = 0;
  if (!prologueTree(f, let, loads, nodes))
    return -1;
  std::set<int> others;
  for (const Expr* l : loads)
    if (l->kind == ExprKind::Load && l->param != a && l->indices.size() == 2)
      others.insert(l->param);
  return others.size() == 1 ? *others.begin() : -1;
}

int matmulStagedTensor(const Kernel& k) {
  if (!dotHasMatmulShape(k))
    return -1;
  for (const StmtRef& s : k.body[0]->body) {
    if (s->kind != StmtKind::For || countDots(s->body) != 1)
      continue;
    std::map<int, const Expr*> lets;
    const Expr* dot = loopDot(*s, lets);
    if (!dot || dot->operands.empty())
      return -1;
    const Expr* a = prologueLoad(*dot->operands[0], letsOf(lets));
    return a ? prologueStagedTensor(*dot->operands[0], a->param, letsOf(lets)) : -1;
  }
  return -1;
}

bool swapsLastTwo(int d1, int d2, int rank) {
  auto norm = [rank](int d) { return d < 0 ? d + rank : d; };
  return std::min(norm(d1), norm(d2)) == rank - 2 && std::max(norm(d1), norm(d2)) == rank - 1;
}

bool isBatchedDot(const Expr& e) {
  if (e.kind != ExprKind::Dot || e.operands.size() < 2)
    return false;
  if (e.type && e.type->dims.size() == 3)
    return true;
  const Expr& b = *e.operands[1];
  return (b.kind == ExprKind::Transpose && b.dim + b.dim2 == 3) ||
         (b.kind == ExprKind::Load && b.indices.size() == 3);
}

bool containsDot(const Kernel& k) {
  return findExpr(k.body, [](const Expr& e) { return e.kind == ExprKind::Dot; }) != nullptr;
}

bool containsBatchedDot(const Kernel& k) { return findExpr(k.body, isBatchedDot) != nullptr; }

bool isBatchedMatmulLoop(const Kernel& k) {
  return k.body.size() == 1 && k.body[0]->kind == StmtKind::For && k.body[0]->tiles.size() == 3;
}

bool dotHasMatmulShape(const Kernel& k) {
  if (k.body.size() != 1 || k.body[0]->kind != StmtKind::For || countDots(k.body) != 1)
    return false;
  const auto [m, n] = outputTiles(*k.body[0]);
  return bodyHasMatmulShape(k.body[0]->body, /*allowPrologue=*/true, m, n);
}

bool dotIsKBlockScaled(const Kernel& k) {
  if (k.body.size() != 1 || k.body[0]->kind != StmtKind::For || countDots(k.body) != 1)
    return false;
  const auto [m, n] = outputTiles(*k.body[0]);
  bool scaled = false;
  return bodyHasMatmulShape(k.body[0]->body, /*allowPrologue=*/true, m, n, &scaled) && scaled;
}

const Stmt* groupedMatmulRowLoop(const Kernel& k) {
  if (k.body.size() != 1 || k.body[0]->kind != StmtKind::For || k.body[0]->tiles.size() != 1 ||
      countDots(k.body) != 1)
    return nullptr;
  // The group loop: lets (the group's bounds), then the row loop, nothing else.
  const std::vector<StmtRef>& body = k.body[0]->body;
  if (body.empty() || body.back()->kind != StmtKind::For || body.back()->tiles.size() != 1)
    return nullptr;
  for (size_t i = 0; i + 1 < body.size(); ++i)
    if (body[i]->kind != StmtKind::Let)
      return nullptr;
  const Stmt& rows = *body.back();
  if (rows.body.size() != 1 || rows.body[0]->kind != StmtKind::For ||
      rows.body[0]->tiles.size() != 1 ||
      !bodyHasMatmulShape(rows.body[0]->body, /*allowPrologue=*/false))
    return nullptr;
  return &rows;
}

DotTemplate dotTemplate(const Kernel& k) {
  if (k.generalDots)
    return DotTemplate::None;
  const bool grouped = groupedMatmulRowLoop(k) != nullptr;
  // Batched dots beside a softmax's row max are flash attention; without one (a
  // batched chain, attention without softmax) they take the general lowering.
  const bool softmax = findExpr(k.body, [](const Expr& e) {
                         return e.kind == ExprKind::Reduce && e.reduce == ReduceOp::Max;
                       }) != nullptr;
  if (containsBatchedDot(k) && !isBatchedMatmulLoop(k) && !grouped && softmax)
    return DotTemplate::Attention;
  if (containsDot(k) && (dotHasMatmulShape(k) || grouped))
    return DotTemplate::Matmul;
  return DotTemplate::None;
}

namespace {

/// The inner loop of `body` that holds a dot, or null.
const Stmt* dotLoop(const std::vector<StmtRef>& body) {
  for (const StmtRef& s : body)
    if (s->kind == StmtKind::For && s->tiles.size() == 1 && countDots(s->body) >= 1)
      return s.get();
  return nullptr;
}

/// Whether the dot of `loop` reads its B operand through a transpose (seen through
/// the loop's lets).
bool secondOperandTransposed(const Stmt& loop) {
  std::map<int, const Expr*> lets;
  const Expr* dot = loopDot(loop, lets);
  const Expr* e = dot && dot->operands.size() >= 2 ? dot->operands[1].get() : nullptr;
  for (int depth = 0; e && depth < 8; ++depth) {
    if (e->kind == ExprKind::Transpose)
      return true;
    if (e->kind != ExprKind::Var)
      return false;
    auto it = lets.find(e->var);
    e = it == lets.end() ? nullptr : it->second;
  }
  return false;
}

} // namespace

TemplateTiles templateTiles(const Kernel& k) {
  TemplateTiles t;
  t.family = dotTemplate(k);
  if (t.family == DotTemplate::None || k.body.empty() || k.body[0]->kind != StmtKind::For)
    return t;
  t.grid = k.body[0].get();
  const std::vector<int>& grid = t.grid->tiles;
  if (t.family == DotTemplate::Matmul) {
    const std::vector<StmtRef>* body = &t.grid->body;
    if (const Stmt* rows = groupedMatmulRowLoop(k)) {
      t.grouped = true;
      t.m = rows->tiles[0];
      t.n = rows->body[0]->tiles[0];
      body = &rows->body[0]->body;
    } else if (grid.size() == 2 || grid.size() == 3) {
      t.b = grid.size() == 3 ? grid[0] : -1;
      t.m = grid[grid.size() - 2];
      t.n = grid.back();
    }
    if (const Stmt* loop = dotLoop(*body)) {
      t.k = loop->tiles[0];
      t.bTransposed = secondOperandTransposed(*loop);
    }
    t.kScaled = !t.grouped && dotIsKBlockScaled(k);
    return t;
  }
  if (grid.size() != 2)
    return t;
  t.b = grid[0];
  t.m = grid[1];
  if (const Stmt* keys = dotLoop(t.grid->body))
    t.n = keys->tiles[0];
  for (const StmtRef& s : t.grid->body) // acc = hl::zeros({tb, tm, d}, hl::f32)
    if (s->kind == StmtKind::Let && s->value && s->value->kind == ExprKind::Full &&
        s->value->shape.size() == 3 && s->value->shapeSizes.size() == 1) {
      t.headDim = s->value->shapeSizes[0];
      break;
    }
  return t;
}

} // namespace helion::ir
