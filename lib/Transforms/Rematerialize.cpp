//===- Rematerialize.cpp - Lets recomputed at each use ---------------------===//
//
// A let over a reduction axis whose value is cheap elementwise arithmetic on other
// values is recomputed where it is used instead of held in a register array per
// thread (Stmt::recompute): `row = x[tm, :].to(f32)` then stays a half-width f16 array
// in the load's let, and `centered = row - mean` costs a subtraction per use, not 40
// live registers. A value with a transcendental, a division, a modulo or a power is
// recomputed only when it is used once; a let that is reassigned, or that holds a
// load, a reduction, a scan, a creation or a dot, never is.
//
//   let recomputed %centered.3 : f32[tm, a0] = sub(%row.1, %mean.2[:, newaxis])
//===----------------------------------------------------------------------===//
#include "helion/IR/DotShape.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"

#include <map>
#include <set>

namespace helion::ir {
namespace {

class Remat {
public:
  explicit Remat(const Kernel& k) {
    walkStmts(k.body, [&](const Stmt& s) {
      if (s.kind == StmtKind::Assign)
        assigned_.insert(s.var);
    });
    walkExprs(k.body, [&](const Expr& e) {
      if (e.kind == ExprKind::Var)
        ++uses_[e.var];
    });
  }

  std::vector<StmtRef> run(const std::vector<StmtRef>& body) const {
    std::vector<StmtRef> out = body;
    for (StmtRef& s : out) {
      if (s->kind == StmtKind::For) {
        auto loop = std::make_shared<Stmt>(*s);
        loop->body = run(s->body);
        s = std::move(loop);
      } else if (s->kind == StmtKind::Let && recompute(*s) != s->recompute) {
        auto let = std::make_shared<Stmt>(*s);
        let->recompute = !s->recompute;
        s = std::move(let);
      }
    }
    return out;
  }

private:
  std::set<int> assigned_;
  std::map<int, int> uses_;

  bool recompute(const Stmt& s) const {
    if (assigned_.count(s.var) || !s.value || !s.value->type)
      return false;
    bool overReduction = false;
    for (const Dim& d : s.value->type->dims)
      overReduction |= d.kind == Dim::Kind::Full;
    if (!overReduction)
      return false;
    bool cheap = true, ok = true;
    walkExpr(*s.value, [&](const Expr& e) {
      switch (e.kind) {
      case ExprKind::Const:
      case ExprKind::Param:
      case ExprKind::Var:
      case ExprKind::View:
      case ExprKind::Cast:
      case ExprKind::Where:
      case ExprKind::Binary: break;
      case ExprKind::Unary:
        if (e.unary != UnaryOp::Neg && e.unary != UnaryOp::Not && e.unary != UnaryOp::Abs)
          cheap = false;
        break;
      default: ok = false;
      }
      if (e.kind == ExprKind::Binary && (e.binary == BinaryOp::Div ||
                                          e.binary == BinaryOp::Mod || e.binary == BinaryOp::Pow))
        cheap = false;
    });
    if (!ok)
      return false;
    auto uses = uses_.find(s.var);
    return cheap || (uses != uses_.end() && uses->second <= 1);
  }
};

} // namespace

Kernel rematerialize(const Kernel& kernel, PassContext&) {
  if (dotTemplate(kernel) != DotTemplate::None)
    return kernel;
  Kernel k = kernel;
  k.body = Remat(kernel).run(kernel.body);
  return k;
}

} // namespace helion::ir
