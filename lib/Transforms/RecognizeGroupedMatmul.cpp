//===- RecognizeGroupedMatmul.cpp - The loops of a grouped GEMM -----------===//
//
// The grouped form of the matmul template (MatmulRecognizer.h, docs/gemm.md):
//
//   for %g in grid(0, %groups) {                     // one group per step
//     let %start = load %offsets[%g.begin]
//     let %end = load %offsets[add(%g.begin, 1)]
//     for %tm in tile(%start, %end) {                // the group's rows
//       for %tn in tile(0, %n) {
//         <the matmul body: accumulator, K loop over dot(a[tm, tk], b[g, tk, tn]),
//          epilogue storing out[tm, tn]>
//       }
//     }
//   }
//
// This file checks the three outer loops (the group loop, the row loop's bounds,
// the column loop) and says which tensor holds the offsets; the Planner in
// RecognizeMatmul.cpp checks the body as for any matmul, with B read at [g, tk, tn].
// The template then runs every (group, tm, tn) tile in parallel: the loops have
// no dependence between iterations (each stores its own out[tm, tn]).
//===----------------------------------------------------------------------===//
#include "MatmulRecognizer.h"

#include <map>

namespace helion::ir {
namespace {


class GroupedLoops {
public:
  GroupedLoops(const Kernel& k, MatmulMatch& p, DiagnosticEngine& d) : k_(k), p_(p), d_(d) {}

  bool run(const Stmt& groups, const Stmt& rows) {
    const int g = groups.tiles[0];
    const TileVar& tg = k_.tiles.at(g);
    const BlockSizeDecl* bs = tg.blockSize >= 0 ? &k_.blockSizes.at(tg.blockSize) : nullptr;
    if (!tg.isGrid && !(bs && bs->fixed && *bs->fixed == 1))
      return fail(tg.loc, "the group loop of a grouped matmul must be hl::grid(groups) (one "
                          "group per step), found a tile loop over '" + tg.name + "'");
    if (!isConst(tg.begin, 0))
      return fail(tg.loc, "the group loop of a grouped matmul must start at group 0: "
                          "hl::grid(groups)");
    p_.tileG = g;
    for (const StmtRef& s : groups.body)
      if (s->kind == StmtKind::Let) {
        lets_[s->var] = s->value;
        p_.groupLets.insert(s->var);
      }
    const int tm = rows.tiles[0];
    const TileVar& rt = k_.tiles.at(tm);
    const Expr* first = boundLoad(rt.begin, false);
    const Expr* last = boundLoad(rt.end, true);
    if (!first || !last || first->param != last->param)
      return fail(rt.loc, "the row loop of a grouped matmul must be hl::tile(start, end) with "
                          "start = offsets[g] and end = offsets[g + 1], loaded in the group loop");
    p_.offsets = first->param;
    p_.tileM = tm;
    const Stmt& cols = *rows.body[0];
    p_.tileN = cols.tiles[0];
    const TileVar& ct = k_.tiles.at(p_.tileN);
    if (!isConst(ct.begin, 0) || ct.isGrid || ct.flatOfParam >= 0)
      return fail(ct.loc, "the column loop of a grouped matmul must be hl::tile(n) from 0");
    return true;
  }

private:
  const Kernel& k_;
  MatmulMatch& p_;
  DiagnosticEngine& d_;
  std::map<int, ExprRef> lets_; // the group loop's lets, by var

  bool fail(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return false;
  }

  static bool isConst(const ExprRef& e, double v) {
    return e && e->kind == ExprKind::Const && e->value == v;
  }

  ExprRef resolve(ExprRef e) const {
    for (int depth = 0; e && e->kind == ExprKind::Var && lets_.count(e->var) && depth < 8; ++depth)
      e = lets_.at(e->var);
    return e;
  }

  /// `offsets[g]` (or, `plusOne`, `offsets[g + 1]`) seen through the lets: the load.
  const Expr* boundLoad(const ExprRef& bound, bool plusOne) const {
    ExprRef e = resolve(bound);
    if (!e || e->kind != ExprKind::Load || e->gatherAll || e->indices.size() != 1 ||
        e->indices[0].kind != Index::Kind::Scalar || !e->indices[0].value)
      return nullptr;
    ExprRef ix = resolve(e->indices[0].value);
    if (plusOne) {
      if (ix->kind != ExprKind::Binary || ix->binary != BinaryOp::Add)
        return nullptr;
      const int one = isConst(ix->operands[1], 1) ? 1 : isConst(ix->operands[0], 1) ? 0 : -1;
      if (one < 0)
        return nullptr;
      ix = resolve(ix->operands[1 - one]);
    }
    return isGroupIndexExpr(*ix, p_) ? e.get() : nullptr;
  }
};

} // namespace

bool isGroupIndexExpr(const Expr& e, const MatmulMatch& p) {
  return p.tileG >= 0 && e.kind == ExprKind::TileAttr && e.tile == p.tileG &&
         e.attr == TileAttr::Begin;
}

bool isGroupIndex(const Index& ix, const MatmulMatch& p) {
  return ix.kind == Index::Kind::Scalar && ix.value && isGroupIndexExpr(*ix.value, p);
}

bool planGroupedLoops(const Kernel& kernel, const Stmt& groups, const Stmt& rows, MatmulMatch& plan,
                      DiagnosticEngine& diags) {
  return GroupedLoops(kernel, plan, diags).run(groups, rows);
}

} // namespace helion::ir
