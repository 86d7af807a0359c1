// The IR walk: the catalogue's children in its order, pre/post hooks, pruning.
#include "../config/TestKernels.h"
#include "helion/IR/Visitor.h"

#include <catch2/catch.hpp>
#include <string>

using namespace helion;
using namespace helion::ir;

namespace {

/// `load x[gather(idx), :] ` with a mask and a Full of shape size `n`: every child slot.
ExprRef everySlot() {
  auto load = std::make_shared<Expr>(*makeLoad(0, {Index::gather(makeVarRef(1)), Index::all()}));
  load->gatherAll = true;
  load->operands = {makeVarRef(2)}; // the mask
  auto full = std::make_shared<Expr>();
  full->kind = ExprKind::Full;
  full->operands = {load};
  full->shape = {Dim::one()};
  full->shapeSizes = {makeParamRef(3)};
  return full;
}

std::string kindName(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Var: return "var" + std::to_string(e.var);
  case ExprKind::Param: return "param" + std::to_string(e.param);
  case ExprKind::Load: return "load";
  case ExprKind::Full: return "full";
  default: return "other";
  }
}

class Recorder : public IRVisitor {
public:
  std::string trace;
  bool pruneLoads = false;

protected:
  bool enter(const Expr& e) override {
    trace += "<" + kindName(e);
    return !(pruneLoads && e.kind == ExprKind::Load);
  }
  void leave(const Expr& e) override { trace += ">"; }
  bool enter(const Stmt& s) override {
    trace += s.kind == StmtKind::For ? "[for" : "[stmt";
    return true;
  }
  void leave(const Stmt&) override { trace += "]"; }
};

} // namespace

TEST_CASE("walkExpr visits operands, then subscripts, then shape sizes, pre-order", "[ir][visitor]") {
  std::string order;
  walkExpr(*everySlot(), [&](const Expr& e) { order += kindName(e) + " "; });
  CHECK(order == "full load var2 var1 param3 ");
}

TEST_CASE("walkExpr prunes the children of a node when the lambda returns false", "[ir][visitor]") {
  std::string order;
  walkExpr(*everySlot(), [&](const Expr& e) {
    order += kindName(e) + " ";
    return e.kind != ExprKind::Load;
  });
  CHECK(order == "full load param3 ");
}

TEST_CASE("IRVisitor calls enter before and leave after the children", "[ir][visitor]") {
  Recorder r;
  r.visit(*everySlot());
  CHECK(r.trace == "<full<load<var2><var1>><param3>>");
  Recorder pruned;
  pruned.pruneLoads = true;
  pruned.visit(*everySlot());
  // A pruned node gets no leave.
  CHECK(pruned.trace == "<full<load<param3>>");
}

TEST_CASE("statements: subscripts, value, mask, then the loop body", "[ir][visitor]") {
  Kernel k = config::test::matmulKernel();
  // for tm, tn { acc = 0; for tk { acc = dot(...) }; store out[tm, tn] = acc }
  Recorder r;
  r.visit(k);
  CHECK(r.trace.substr(0, 11) == "[for[stmt<o");
  int loops = 0, stmts = 0;
  walkStmts(k.body, [&](const Stmt& s) { (s.kind == StmtKind::For ? loops : stmts)++; });
  CHECK(loops == 2);
  CHECK(stmts == 3);
  // walkStmts prunes loop bodies on false: only the grid loop is seen.
  loops = 0;
  walkStmts(k.body, [&](const Stmt& s) {
    loops += s.kind == StmtKind::For;
    return false;
  });
  CHECK(loops == 1);
}

TEST_CASE("findExpr finds the first matching node in walk order", "[ir][visitor]") {
  Kernel k = config::test::matmulKernel();
  const Expr* dot = findExpr(k.body, [](const Expr& e) { return e.kind == ExprKind::Dot; });
  REQUIRE(dot);
  CHECK(dot->operands.size() == 3);
  CHECK_FALSE(findExpr(k.body, [](const Expr& e) { return e.kind == ExprKind::Reduce; }));
  const Expr* load = findExpr(*dot, [](const Expr& e) { return e.kind == ExprKind::Load; });
  REQUIRE(load);
  CHECK(load->param == 0); // x before y
  std::vector<int> params;
  walkExprs(k.body, [&](const Expr& e) {
    if (e.kind == ExprKind::Load)
      params.push_back(e.param);
  });
  CHECK(params == std::vector<int>{0, 1});
}
