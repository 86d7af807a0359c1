//===- helion/IR/Visitor.h - Walking the IR ----------------------*- C++ -*-===//
//
// The node catalogue: which fields of a node are its children, in which order. Every
// walk of the IR goes through it, so no walker decides for itself what a child is.
//
//   Expr: operands, then the values of its subscripts, then its shape sizes
//         (forEachChild, IR.h);
//   Stmt: the values of its subscripts, then its value, then its mask, then the
//         statements of its body (a tile loop's) (forEachExprOf, forEachChildStmt).
//
// Nodes are one struct per family with a `kind`, and the children live in these
// generic slots whatever the kind, so a new ExprKind or StmtKind needs nothing here;
// a new child *field* is added to forEachChild / forEachExprOf, to IRMutator's
// rebuild (Mutator.cpp) and to structural equality (Equality.cpp), and nowhere else.
//
// Two ways to walk:
//   - IRVisitor, a class with enter/leave hooks (pre- and post-order) for walks that
//     keep state, e.g. the load/store site numbering of Sites.cpp;
//   - walkExpr / walkStmts / walkExprs / findExpr, function templates taking a lambda,
//     for the one-line questions ("does this body hold a dot?", "which vars are used?").
// A hook or lambda returning bool prunes the node's children when it returns false.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <type_traits>

namespace helion::ir {

/// Calls `f(expr)` for each expression directly held by `s`: the values of its
/// subscripts, its value, its mask (the Stmt half of the catalogue; not the body).
template <class F> void forEachExprOf(const Stmt& s, F&& f) {
  for (const Index& i : s.indices)
    if (i.value)
      f(*i.value);
  if (s.value)
    f(*s.value);
  if (s.mask)
    f(*s.mask);
}

/// Calls `f(stmt)` for each statement of `s`'s body (a tile loop's; empty otherwise).
template <class F> void forEachChildStmt(const Stmt& s, F&& f) {
  for (const StmtRef& b : s.body)
    f(*b);
}

/// A read-only walk with hooks. `enter` runs before a node's children (returning false
/// skips them and the node's `leave`), `leave` after them. visit(Stmt) walks the
/// statement's expressions (enter/leave for each node) and then its body.
class IRVisitor {
public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);
  void visit(const std::vector<StmtRef>& body);
  /// The kernel's statements (its tile loops' bounds are not statements: see TileVar).
  void visit(const Kernel& k) { visit(k.body); }

protected:
  virtual bool enter(const Expr&) { return true; }
  virtual void leave(const Expr&) {}
  virtual bool enter(const Stmt&) { return true; }
  virtual void leave(const Stmt&) {}
};

namespace detail {
/// Calls f; a void f always continues, a bool f continues when it returns true.
template <class F, class N> bool call(F& f, const N& n) {
  if constexpr (std::is_same_v<std::invoke_result_t<F&, const N&>, void>) {
    f(n);
    return true;
  } else {
    return static_cast<bool>(f(n));
  }
}
} // namespace detail

/// Pre-order over `e` and every expression under it. `f(const Expr&)` returns void, or
/// bool: false skips that node's children.
template <class F> void walkExpr(const Expr& e, F&& f) {
  if (!detail::call(f, e))
    return;
  forEachChild(e, [&](const Expr& c) { walkExpr(c, f); });
}

/// Pre-order over every statement of `body`, loop bodies included. `f(const Stmt&)`
/// returns void, or bool: false skips that statement's body.
template <class F> void walkStmts(const std::vector<StmtRef>& body, F&& f) {
  for (const StmtRef& s : body)
    if (detail::call(f, *s))
      walkStmts(s->body, f);
}

/// Pre-order over every expression node of every statement of `body` (loop bodies
/// included), in catalogue order. `f` as for walkExpr.
template <class F> void walkExprs(const std::vector<StmtRef>& body, F&& f) {
  walkStmts(body, [&](const Stmt& s) { forEachExprOf(s, [&](const Expr& e) { walkExpr(e, f); }); });
}

/// The first node of `e` (pre-order) for which `pred` holds, or null.
template <class P> const Expr* findExpr(const Expr& e, P&& pred) {
  const Expr* found = nullptr;
  walkExpr(e, [&](const Expr& n) {
    if (!found && pred(n))
      found = &n;
    return !found;
  });
  return found;
}

/// The first expression node of statement `s`, its loop body included (in walkExprs
/// order), for which `pred` holds, or null.
template <class P> const Expr* findExpr(const Stmt& s, P&& pred) {
  const Expr* found = nullptr;
  forEachExprOf(s, [&](const Expr& e) {
    if (!found)
      found = findExpr(e, pred);
  });
  for (size_t i = 0; !found && i < s.body.size(); ++i)
    found = findExpr(*s.body[i], pred);
  return found;
}

/// The first expression node of `body` (in walkExprs order) for which `pred` holds, or
/// null.
template <class P> const Expr* findExpr(const std::vector<StmtRef>& body, P&& pred) {
  for (const StmtRef& s : body)
    if (const Expr* found = findExpr(*s, pred))
      return found;
  return nullptr;
}

} // namespace helion::ir
