//===- Mutator.cpp - Rebuild-on-change -------------------------------------===//
//
// The children visited here are the catalogue's (Visitor.h): a new child field of
// Expr or Stmt is rebuilt here as well.
//===----------------------------------------------------------------------===//
#include "helion/IR/Mutator.h"

namespace helion::ir {
namespace {

/// `f(ref)` for every non-null ref; true when any came back different.
template <class F> bool mutateIndices(const std::vector<Index>& in, std::vector<Index>& out, F&& f) {
  bool changed = false;
  out = in;
  for (Index& i : out)
    if (i.value) {
      ExprRef n = f(i.value);
      changed |= n != i.value;
      i.value = std::move(n);
    }
  return changed;
}

} // namespace

ExprRef IRMutator::mutateChildren(const ExprRef& e) {
  if (!e)
    return e;
  auto mut = [&](const ExprRef& c) { return mutate(c); };
  std::vector<ExprRef> operands, sizes;
  bool changed = false;
  for (const ExprRef& op : e->operands) {
    operands.push_back(op ? mutate(op) : op);
    changed |= operands.back() != op;
  }
  std::vector<Index> indices;
  changed |= mutateIndices(e->indices, indices, mut);
  for (const ExprRef& s : e->shapeSizes) {
    sizes.push_back(s ? mutate(s) : s);
    changed |= sizes.back() != s;
  }
  if (!changed)
    return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->operands = std::move(operands);
  copy->indices = std::move(indices);
  copy->shapeSizes = std::move(sizes);
  return copy;
}

StmtRef IRMutator::mutateChildren(const StmtRef& s) {
  auto mut = [&](const ExprRef& c) { return mutate(c); };
  std::vector<Index> indices;
  bool changed = mutateIndices(s->indices, indices, mut);
  ExprRef value = s->value ? mutate(s->value) : nullptr;
  ExprRef mask = s->mask ? mutate(s->mask) : nullptr;
  changed |= value != s->value || mask != s->mask;
  std::vector<StmtRef> body = mutateBody(s->body);
  changed |= body != s->body;
  if (!changed)
    return s;
  auto copy = std::make_shared<Stmt>(*s);
  copy->indices = std::move(indices);
  copy->value = std::move(value);
  copy->mask = std::move(mask);
  copy->body = std::move(body);
  return copy;
}

void IRMutator::mutate(const StmtRef& s, std::vector<StmtRef>& out) {
  out.push_back(mutateChildren(s));
}

std::vector<StmtRef> IRMutator::mutateBody(const std::vector<StmtRef>& body) {
  std::vector<StmtRef> out;
  out.reserve(body.size());
  for (const StmtRef& s : body)
    mutate(s, out);
  return out;
}

Kernel IRMutator::mutateKernel(const Kernel& k) {
  Kernel out = k;
  out.body = mutateBody(k.body);
  return out;
}

} // namespace helion::ir
