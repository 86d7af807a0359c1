//===- MmaPlan.cpp - The mma layout of a kernel's general dots ------------===//
//
// The plan needs: every dot a let's or assignment's value of two 2-D operands
// [R, K] x [K, C] -> [R, C] over tiles; the roles consistent (no tile both a row and
// a column tile, no value over two row or two column tiles); rows a multiple of 16
// per warp, columns of 8, a register A's K of 16. Then the K tile of a register A
// becomes a column tile where that keeps every value on one column tile; otherwise
// the plan retries with every A staged. See MmaPlan.h for what the plan means.
//===----------------------------------------------------------------------===//
#include "helion/IR/MmaPlan.h"

#include "helion/IR/DotShape.h"

#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::ir {
namespace {

using Key = std::pair<bool, int>; // (a tile, id): a tile, or a reduction axis

std::optional<Key> keyOfDim(const Kernel& k, const Dim& d) {
  if (d.kind == Dim::Kind::Tile && !k.tiles.at(d.tile).isGrid)
    return Key{true, d.tile};
  if (d.kind == Dim::Kind::Full)
    return Key{false, d.axis};
  return std::nullopt;
}

struct Facts {
  std::map<int, const Stmt*> letOf;
  std::map<int, int> uses;
  std::set<int> stored, assigned;
};

/// The load an operand reads when it can be copied straight into shared memory: a
/// plain tile load (no mask, no gather) of a tensor the kernel does not write (the
/// copy reads it where the dot is, not where the let was), inline or held in a let
/// used by this dot only. `*let`: that let.
const Expr* copyableLoad(const Expr& op, const Facts& f, const Stmt** let) {
  *let = nullptr;
  // A transposed load (`w[tn, tk].transpose(0, 1)`) is copied as it is read.
  const int rank = op.type ? op.type->rank() : 0;
  const bool transposed = op.kind == ExprKind::Transpose && op.operands[0]->type &&
                          op.operands[0]->type->rank() == rank && rank >= 2 &&
                          swapsLastTwo(op.dim, op.dim2, rank);
  const Expr& viewed = transposed ? *op.operands[0] : op;
  const Expr* load = &viewed;
  const Stmt* def = nullptr;
  if (viewed.kind == ExprKind::Var) {
    auto it = f.letOf.find(viewed.var);
    if (it == f.letOf.end() || f.assigned.count(viewed.var) || f.uses.at(viewed.var) != 1)
      return nullptr;
    def = it->second;
    load = def->value.get();
  }
  std::vector<Dim> dims = op.type->dims;
  if (transposed)
    std::swap(dims[rank - 2], dims[rank - 1]);
  if (load->kind != ExprKind::Load || load->gatherAll || loadMask(*load) || !load->type ||
      load->type->dims != dims || f.stored.count(load->param))
    return nullptr;
  *let = def;
  return load;
}

/// Whether a copied load (or none) is subscripted by tiles and whole dims only.
bool plainLoad(const Expr* load) {
  if (!load)
    return true;
  for (const Index& i : load->indices)
    if (i.kind != Index::Kind::Tile && i.kind != Index::Kind::All &&
        i.kind != Index::Kind::NewAxis)
      return false;
  return true;
}

/// Whether a dot's operands can be copied ahead of it (pipelined or early): B and A
/// copied loads subscripted by tiles and whole dims, or A in registers.
bool copiesAhead(const MmaPlan::Dot& p) {
  return p.loadB && (p.loadA || p.registerA) && plainLoad(p.loadA) && plainLoad(p.loadB);
}

/// The pipelined dot: the first dot directly in the body of a one-tile inner loop
/// whose operands are copied loads (or A in registers) subscripted by tiles and whole
/// dims only, with no other dot in that loop.
void planPipeline(const Kernel& k, MmaPlan& plan) {
  walkStmts(k.body, [&](const Stmt& loop) {
    if (plan.pipelined || loop.kind != StmtKind::For || loop.grid || loop.tiles.size() != 1)
      return;
    int dots = 0;
    walkExprs(loop.body, [&](const Expr& e) { dots += e.kind == ExprKind::Dot; });
    if (dots != 1)
      return;
    for (const StmtRef& s : loop.body) {
      if ((s->kind != StmtKind::Let && s->kind != StmtKind::Assign) || !s->value ||
          s->value->kind != ExprKind::Dot)
        continue;
      const MmaPlan::Dot& p = plan.dots.at(s->value.get());
      if (copiesAhead(p)) {
        plan.pipelined = s->value.get();
        plan.pipeLoop = &loop;
      }
    }
  });
}

/// Early copies: each other dot with a copied operand and no operand written by its
/// owners, directly in the body of an inner tile loop, whose loads use only tiles
/// bound at the top of that loop's body (its own and its enclosing loops').
void planEarly(const std::vector<StmtRef>& body, std::vector<const Stmt*>& loops,
               MmaPlan& plan) {
  for (const StmtRef& s : body) {
    if (s->kind == StmtKind::For) {
      loops.push_back(s.get());
      planEarly(s->body, loops, plan);
      loops.pop_back();
      continue;
    }
    if ((s->kind != StmtKind::Let && s->kind != StmtKind::Assign) || !s->value ||
        s->value->kind != ExprKind::Dot || loops.empty() || loops.back()->grid ||
        s->value.get() == plan.pipelined)
      continue;
    MmaPlan::Dot& p = plan.dots.at(s->value.get());
    if (!copiesAhead(p))
      continue;
    auto bound = [&](const Expr* load) {
      if (!load)
        return true;
      for (const Index& i : load->indices) {
        if (i.kind != Index::Kind::Tile)
          continue;
        bool found = false;
        for (const Stmt* l : loops)
          found |= std::count(l->tiles.begin(), l->tiles.end(), i.tile) > 0;
        if (!found)
          return false;
      }
      return true;
    };
    if (bound(p.loadA) && bound(p.loadB))
      p.earlyLoop = loops.back();
  }
}

} // namespace

std::optional<MmaPlan> planMma(const Kernel& k, const std::function<int64_t(int tile)>& blockSize,
                               int numWarps, int numStages) {
  std::vector<const Expr*> dots;
  Facts f;
  bool nestedDot = false;
  walkStmts(k.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Let && s.value)
      f.letOf[s.var] = &s;
    if (s.kind == StmtKind::Assign)
      f.assigned.insert(s.var);
    if (s.kind == StmtKind::Store)
      f.stored.insert(s.param);
    if ((s.kind == StmtKind::Let || s.kind == StmtKind::Assign) && s.value &&
        s.value->kind == ExprKind::Dot)
      dots.push_back(s.value.get());
    forEachExprOf(s, [&](const Expr& root) {
      walkExpr(root, [&](const Expr& e) {
        if (e.kind == ExprKind::Var)
          ++f.uses[e.var];
        nestedDot |= e.kind == ExprKind::Dot && &e != s.value.get();
      });
    });
  });
  if (dots.empty() || nestedDot)
    return std::nullopt;
  const int warps = std::clamp(numWarps, 1, 32);
  std::map<Key, MmaRole> role;
  auto assign = [&](const Key& key, MmaRole r) {
    auto [it, fresh] = role.emplace(key, r);
    return fresh || it->second == r;
  };
  MmaPlan plan;
  // Results first: rows and columns.
  for (const Expr* d : dots) {
    if (d->operands.size() < 2 || !d->type || !d->operands[0]->type || !d->operands[1]->type)
      return std::nullopt;
    const BlockType &a = *d->operands[0]->type, &b = *d->operands[1]->type, &c = *d->type;
    // 2-D, or batched over a leading tile of block size 1 (one matrix per program).
    const int o = c.rank() - 2;
    if (o < 0 || o > 1 || a.rank() != c.rank() || b.rank() != c.rank() ||
        a.dims[o] != c.dims[o] || b.dims[o + 1] != c.dims[o + 1] || a.dims[o + 1] != b.dims[o])
      return std::nullopt;
    if (o == 1 && !(a.dims[0] == c.dims[0] && b.dims[0] == c.dims[0] &&
                    (c.dims[0].kind == Dim::Kind::One ||
                     (c.dims[0].kind == Dim::Kind::Tile && blockSize(c.dims[0].tile) == 1))))
      return std::nullopt;
    auto r = keyOfDim(k, c.dims[o]), col = keyOfDim(k, c.dims[o + 1]);
    auto kk = keyOfDim(k, a.dims[o + 1]);
    if (!r || !col || !kk || !r->first || !col->first || *r == *col ||
        !assign(*r, MmaRole::Row) || !assign(*col, MmaRole::Col))
      return std::nullopt;
    MmaPlan::Dot p;
    p.loadA = copyableLoad(*d->operands[0], f, &p.letA);
    p.loadB = copyableLoad(*d->operands[1], f, &p.letB);
    plan.dots[d] = p;
  }
  // Every value the kernel holds: at most one row and one column tile.
  std::set<const Expr*> copied;
  std::set<const Stmt*> copiedLets;
  for (const auto& [d, p] : plan.dots) {
    if (p.loadA)
      copied.insert(d->operands[0].get());
    if (p.loadB)
      copied.insert(d->operands[1].get());
    if (p.letA)
      copiedLets.insert(p.letA);
    if (p.letB)
      copiedLets.insert(p.letB);
  }
  auto fits = [&] {
    bool ok = true;
    auto checkType = [&](const BlockType& t) {
      int rows = 0, cols = 0;
      for (const Dim& dim : t.dims)
        if (auto key = keyOfDim(k, dim); key && role.count(*key))
          ++(role.at(*key) == MmaRole::Row ? rows : cols);
      ok &= rows <= 1 && cols <= 1;
    };
    walkStmts(k.body, [&](const Stmt& s) {
      if (copiedLets.count(&s) || !s.value)
        return;
      walkExpr(*s.value, [&](const Expr& e) {
        if (copied.count(&e)) // not held in registers, nor the load it reads
          return false;
        if (e.type)
          checkType(*e.type);
        return true;
      });
      if (s.kind == StmtKind::Store && !s.targetDims.empty()) {
        BlockType target = *s.value->type;
        target.dims = s.targetDims;
        checkType(target);
      }
    });
    for (const auto& [key, r] : role)
      if (key.first)
        ok &= blockSize(key.second) % (r == MmaRole::Row ? 16 * warps : 8) == 0;
    return ok;
  };
  // Then the K tiles of register A operands: a column tile where that is free. When
  // that puts two column tiles on one value (a computed B over [tk, tn]), the A
  // operands are staged by their owners instead.
  const std::map<Key, MmaRole> resultRoles = role;
  for (auto& [d, p] : plan.dots) {
    if (p.loadA)
      continue;
    const BlockType& a = *d->operands[0]->type;
    auto kk = keyOfDim(k, a.dims[a.rank() - 1]);
    p.registerA = kk->first && blockSize(kk->second) % 16 == 0 && assign(*kk, MmaRole::Col);
  }
  if (!fits()) {
    role = resultRoles;
    for (auto& [d, p] : plan.dots)
      p.registerA = false;
    if (!fits())
      return std::nullopt;
  }
  for (const auto& [key, r] : role)
    if (key.first)
      plan.roles[key.second] = r;
  if (numStages >= 2)
    planPipeline(k, plan);
  std::vector<const Stmt*> loops;
  planEarly(k.body, loops, plan);
  return plan;
}

} // namespace helion::ir
