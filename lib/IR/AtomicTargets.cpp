//===- AtomicTargets.cpp - Tensors only atomics write ---------------------===//
#include "helion/IR/AtomicTargets.h"
#include "helion/IR/Visitor.h"

#include <set>

namespace helion::ir {

std::vector<int> atomicOnlyTargets(const Kernel& k) {
  std::set<int> atomic, touched; // touched: loaded, stored plainly, or read by a bound
  auto seeExpr = [&](const Expr& root) {
    walkExpr(root, [&](const Expr& e) {
      if (e.kind == ExprKind::Load)
        touched.insert(e.param);
    });
  };
  walkStmts(k.body, [&](const Stmt& s) {
    forEachExprOf(s, seeExpr);
    if (s.kind == StmtKind::Store)
      (s.atomicAdd ? atomic : touched).insert(s.param);
  });
  for (const TileVar& t : k.tiles) {
    if (t.begin)
      seeExpr(*t.begin);
    if (t.end)
      seeExpr(*t.end);
  }
  for (const Axis& a : k.axes)
    if (a.extent)
      seeExpr(*a.extent);
  std::vector<int> out;
  for (int p : atomic)
    if (!touched.count(p))
      out.push_back(p);
  return out;
}

} // namespace helion::ir
