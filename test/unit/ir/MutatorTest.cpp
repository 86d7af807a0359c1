// IRMutator: rebuild on change only, statement splitting and dropping.
#include "../config/TestKernels.h"
#include "helion/IR/Equality.h"
#include "helion/IR/Mutator.h"
#include "helion/IR/Visitor.h"

#include <catch2/catch.hpp>

using namespace helion;
using namespace helion::ir;

namespace {

/// Replaces every load of parameter `from` by one of `to`.
class RenameLoads : public IRMutator {
public:
  RenameLoads(int from, int to) : from_(from), to_(to) {}
  using IRMutator::mutate;
  ExprRef mutate(const ExprRef& e) override {
    ExprRef n = IRMutator::mutate(e);
    if (n->kind != ExprKind::Load || n->param != from_)
      return n;
    auto copy = std::make_shared<Expr>(*n);
    copy->param = to_;
    return copy;
  }

private:
  int from_, to_;
};

/// Drops assignments and doubles lets.
class DropAndDouble : public IRMutator {
public:
  using IRMutator::mutate;
  void mutate(const StmtRef& s, std::vector<StmtRef>& out) override {
    if (s->kind == StmtKind::Assign)
      return;
    IRMutator::mutate(s, out);
    if (s->kind == StmtKind::Let)
      out.push_back(s);
  }
};

} // namespace

TEST_CASE("a mutator that changes nothing returns the same nodes", "[ir][mutator]") {
  Kernel k = config::test::matmulKernel();
  IRMutator identity;
  Kernel out = identity.mutateKernel(k);
  REQUIRE(out.body.size() == 1);
  CHECK(out.body[0] == k.body[0]); // not rebuilt: pointer-equal
}

TEST_CASE("a mutator rebuilds exactly the path to a changed node", "[ir][mutator]") {
  Kernel k = config::test::matmulKernel();
  RenameLoads rename(1, 2); // y -> out
  Kernel out = rename.mutateKernel(k);
  const Stmt& grid = *out.body[0];
  CHECK(out.body[0] != k.body[0]);
  // `acc = 0` and the store hold no load of y: shared with the input.
  CHECK(grid.body[0] == k.body[0]->body[0]);
  CHECK(grid.body[2] == k.body[0]->body[2]);
  CHECK(grid.body[1] != k.body[0]->body[1]); // the K loop changed
  std::vector<int> params;
  walkExprs(out.body, [&](const Expr& e) {
    if (e.kind == ExprKind::Load)
      params.push_back(e.param);
  });
  CHECK(params == std::vector<int>{0, 2});
  // The load of x kept its identity inside the rebuilt dot.
  const Expr* x0 = findExpr(k.body, [](const Expr& e) { return e.kind == ExprKind::Load; });
  const Expr* x1 = findExpr(out.body, [](const Expr& e) { return e.kind == ExprKind::Load; });
  CHECK(x0 == x1);
  // The input is untouched.
  CHECK(findExpr(k.body, [](const Expr& e) { return e.kind == ExprKind::Load && e.param == 2; }) ==
        nullptr);
}

TEST_CASE("a statement mutator can drop and split statements", "[ir][mutator]") {
  Kernel k = config::test::matmulKernel();
  DropAndDouble m;
  Kernel out = m.mutateKernel(k);
  int lets = 0, assigns = 0;
  walkStmts(out.body, [&](const Stmt& s) {
    lets += s.kind == StmtKind::Let;
    assigns += s.kind == StmtKind::Assign;
  });
  CHECK(lets == 2);
  CHECK(assigns == 0);
  CHECK_FALSE(structurallyEqual(*out.body[0], *k.body[0]));
}
