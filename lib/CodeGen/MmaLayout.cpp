//===- MmaLayout.cpp - The mma layout of a kernel's general dots ----------===//
//
// A generic kernel whose dots all fit the mma layout (helion/dot.cuh, MmaDot) lays
// out their results as mma.sync accumulators: the row axis of each result on
// thread bits 2.. (a warp per 16 rows), the column axis on thread bits 0-1 in pairs.
// A dot then runs on register fragments (EmitMmaDot.cpp):
//   - an operand that is a tensor load used only by the dot is copied by all
//     threads into shared memory and read with ldmatrix; its let is not emitted;
//   - an A operand computed in registers whose K axis is a column axis (the result
//     of an earlier dot, after pointwise code) is the A fragment as it is;
//   - any other operand is written into shared memory by its owners.
// The plan needs: every dot a let's value of two 2-D operands [R, K] x [K, C]
// -> [R, C] over layout tiles; the roles consistent (no axis both a row and a
// column axis, no value over two row or two column axes); rows a multiple of 16
// per warp, columns of 8, a register A's K of 16. Otherwise the kernel keeps the
// shared-memory dot (EmitDot.cpp) and the usual layout.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/IR/Visitor.h"

#include <algorithm>
#include <optional>

namespace helion::codegen {

using namespace ir;

namespace {

std::optional<Emitter::AxisKey> keyOfDim(const Kernel& k, const Dim& d) {
  if (d.kind == Dim::Kind::Tile && !k.tiles.at(d.tile).isGrid)
    return Emitter::AxisKey{true, d.tile};
  if (d.kind == Dim::Kind::Full)
    return Emitter::AxisKey{false, d.axis};
  return std::nullopt;
}

} // namespace

/// The load an operand reads when it can be copied straight into shared memory:
/// a plain tile load (no mask, no gather) of a tensor the kernel does not write (the
/// copy reads it where the dot is, not where the let was), held in a let used by
/// this dot only.
const Expr* Emitter::stageableLoad(const Expr& op, const std::map<int, const Stmt*>& letOf,
                                   const std::map<int, int>& uses, const std::set<int>& stored,
                                   const Stmt** let) const {
  *let = nullptr;
  // A transposed load (`w[tn, tk].transpose(0, 1)`) is copied as it is read.
  const bool transposed = op.kind == ExprKind::Transpose && op.operands[0]->type &&
                          op.operands[0]->type->rank() == 2;
  const Expr& viewed = transposed ? *op.operands[0] : op;
  const Expr* load = &viewed;
  const Stmt* def = nullptr;
  if (viewed.kind == ExprKind::Var) {
    auto it = letOf.find(viewed.var);
    if (it == letOf.end() || assignedVars_.count(viewed.var) || uses.at(viewed.var) != 1)
      return nullptr;
    def = it->second;
    load = def->value.get();
  }
  std::vector<Dim> dims = op.type->dims;
  if (transposed)
    std::swap(dims[0], dims[1]);
  if (load->kind != ExprKind::Load || load->gatherAll || loadMask(*load) || !load->type ||
      load->type->dims != dims || stored.count(load->param))
    return nullptr;
  *let = def;
  return load;
}

void Emitter::planMmaLayout() {
  std::vector<const Expr*> dots;
  std::map<int, const Stmt*> letOf;
  std::map<int, int> uses;
  std::set<int> stored;
  bool nestedDot = false;
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Let && s.value)
      letOf[s.var] = &s;
    if (s.kind == StmtKind::Assign)
      assignedVars_.insert(s.var);
    if (s.kind == StmtKind::Store)
      stored.insert(s.param);
    if ((s.kind == StmtKind::Let || s.kind == StmtKind::Assign) && s.value &&
        s.value->kind == ExprKind::Dot)
      dots.push_back(s.value.get());
    forEachExprOf(s, [&](const Expr& root) {
      walkExpr(root, [&](const Expr& e) {
        if (e.kind == ExprKind::Var)
          ++uses[e.var];
        nestedDot |= e.kind == ExprKind::Dot && &e != s.value.get();
      });
    });
  });
  if (dots.empty() || nestedDot)
    return;
  const int warps = std::clamp(cfg_.numWarps, 1, 32);
  std::map<AxisKey, MmaRole> role;
  auto assign = [&](const AxisKey& key, MmaRole r) {
    auto [it, fresh] = role.emplace(key, r);
    return fresh || it->second == r;
  };
  std::map<const Expr*, MmaDotPlan> plans;
  // Results first: rows and columns.
  for (const Expr* d : dots) {
    const BlockType &a = *d->operands[0]->type, &b = *d->operands[1]->type, &c = *d->type;
    if (a.rank() != 2 || b.rank() != 2 || c.rank() != 2 || a.dims[0] != c.dims[0] ||
        b.dims[1] != c.dims[1] || a.dims[1] != b.dims[0])
      return;
    auto r = keyOfDim(k_, c.dims[0]), col = keyOfDim(k_, c.dims[1]);
    auto kk = keyOfDim(k_, a.dims[1]);
    if (!r || !col || !kk || !r->first || !col->first || *r == *col ||
        !assign(*r, MmaRole::Row) || !assign(*col, MmaRole::Col))
      return;
    MmaDotPlan p;
    p.loadA = stageableLoad(*d->operands[0], letOf, uses, stored, &p.letA);
    p.loadB = stageableLoad(*d->operands[1], letOf, uses, stored, &p.letB);
    plans[d] = p;
  }
  // Every value the kernel holds: at most one row and one column axis.
  std::set<const Expr*> staged;
  std::set<const Stmt*> stagedLets;
  for (const auto& [d, p] : plans) {
    if (p.loadA)
      staged.insert(d->operands[0].get());
    if (p.loadB)
      staged.insert(d->operands[1].get());
    if (p.letA)
      stagedLets.insert(p.letA);
    if (p.letB)
      stagedLets.insert(p.letB);
  }
  auto fits = [&] {
    bool ok = true;
    auto checkType = [&](const BlockType& t) {
      int rows = 0, cols = 0;
      for (const Dim& dim : t.dims)
        if (auto key = keyOfDim(k_, dim); key && role.count(*key))
          ++(role.at(*key) == MmaRole::Row ? rows : cols);
      ok &= rows <= 1 && cols <= 1;
    };
    walkStmts(k_.body, [&](const Stmt& s) {
      if (stagedLets.count(&s) || !s.value)
        return;
      walkExpr(*s.value, [&](const Expr& e) {
        if (!staged.count(&e) && e.type)
          checkType(*e.type);
      });
      if (s.kind == StmtKind::Store && !s.targetDims.empty()) {
        BlockType target = *s.value->type;
        target.dims = s.targetDims;
        checkType(target);
      }
    });
    for (const auto& [key, r] : role)
      if (key.first)
        ok &= tileBlockSize(key.second) % (r == MmaRole::Row ? 16 * warps : 8) == 0;
    return ok;
  };
  // Then the K axes of register A operands: a column axis where that is free. When
  // that puts two column axes on one value (a computed B over [tk, tn]), the A
  // operands are staged by their owners instead.
  const std::map<AxisKey, MmaRole> resultRoles = role;
  for (auto& [d, p] : plans) {
    if (p.loadA)
      continue;
    auto kk = keyOfDim(k_, d->operands[0]->type->dims[1]);
    p.registerA = kk->first && tileBlockSize(kk->second) % 16 == 0 && assign(*kk, MmaRole::Col);
  }
  if (!fits()) {
    role = resultRoles;
    for (auto& [d, p] : plans)
      p.registerA = false;
    if (!fits())
      return;
  }
  mmaLayout_ = true;
  mmaRole_ = std::move(role);
  mmaDots_ = std::move(plans);
  stagedOperands_ = std::move(staged);
  planDotPipeline();
  dotOperandLets_ = std::move(stagedLets);
}

} // namespace helion::codegen
