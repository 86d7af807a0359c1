//===- helion/IR/Mutator.h - Rebuilding the IR -------------------*- C++ -*-===//
//
// A pass that rewrites the IR derives from IRMutator and overrides `mutate` for the
// nodes it changes, calling the base (which mutates the children) for the rest:
//
//   class Folder : public IRMutator {
//     ExprRef mutate(const ExprRef& e) override {
//       ExprRef n = IRMutator::mutate(e);  // children first
//       return isAddOfZero(*n) ? n->operands[0] : n;
//     }
//   };
//
// Nodes are immutable and shared: a node is rebuilt only when one of its children
// changed (pointer comparison), so an unchanged subtree keeps its identity, and the
// analyses that key on `const Expr*` (load sites, staging) still find it. Children
// are the catalogue's (Visitor.h), in its order.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

namespace helion::ir {

class IRMutator {
public:
  virtual ~IRMutator() = default;

  /// The replacement of `e`; the default mutates its children.
  virtual ExprRef mutate(const ExprRef& e) { return mutateChildren(e); }
  /// Appends the replacement of `s` to `out`: none (drop it), one, or several (a
  /// statement split in two). The default appends `s` with its children mutated.
  virtual void mutate(const StmtRef& s, std::vector<StmtRef>& out);

  /// Each statement of `body` through mutate(StmtRef, out).
  std::vector<StmtRef> mutateBody(const std::vector<StmtRef>& body);
  /// `k` with its body mutated (the rest copied).
  Kernel mutateKernel(const Kernel& k);

protected:
  /// `e` with each child passed through mutate(ExprRef); `e` itself when none changed.
  ExprRef mutateChildren(const ExprRef& e);
  /// `s` with its expressions and body mutated; `s` itself when none changed.
  StmtRef mutateChildren(const StmtRef& s);
};

} // namespace helion::ir
