//===- Visitor.cpp - The read-only walk ------------------------------------===//
#include "helion/IR/Visitor.h"

namespace helion::ir {

void IRVisitor::visit(const Expr& e) {
  if (!enter(e))
    return;
  forEachChild(e, [&](const Expr& c) { visit(c); });
  leave(e);
}

void IRVisitor::visit(const Stmt& s) {
  if (!enter(s))
    return;
  forEachExprOf(s, [&](const Expr& e) { visit(e); });
  forEachChildStmt(s, [&](const Stmt& b) { visit(b); });
  leave(s);
}

void IRVisitor::visit(const std::vector<StmtRef>& body) {
  for (const StmtRef& s : body)
    visit(*s);
}

} // namespace helion::ir
