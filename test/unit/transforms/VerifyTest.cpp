// The IR verifier: kernels the builders make are valid; each broken invariant is
// reported once as an internal compiler error naming the stage.
#include "../config/TestKernels.h"
#include "helion/Transforms/Passes.h"

#include <catch2/catch.hpp>
#include <sstream>

using namespace helion;
using namespace helion::ir;

namespace {

struct Verified {
  bool ok;
  std::string text;
};

Verified verify(const Kernel& k, bool typed = false) {
  std::ostringstream out;
  DiagnosticEngine diags(out);
  bool ok = verifyKernel(k, diags, "test-stage", typed);
  return {ok, out.str()};
}

/// The first statement of the first loop's body, as a mutable copy put back into `k`.
Stmt& firstStmt(Kernel& k) {
  auto loop = std::make_shared<Stmt>(*k.body.at(0));
  auto first = std::make_shared<Stmt>(*loop->body.at(0));
  loop->body[0] = first;
  k.body[0] = loop;
  return *first;
}

} // namespace

TEST_CASE("verifier accepts the builders' kernels", "[verify]") {
  CHECK(verify(config::test::softmaxKernel(false)).ok);
  CHECK(verify(config::test::matmulKernel()).ok);
  CHECK(verify(config::test::twoPassKernel()).ok);
}

TEST_CASE("verifier reports a dropped or extra operand", "[verify]") {
  Kernel k = config::test::softmaxKernel(false);
  Stmt& s = firstStmt(k);
  REQUIRE(s.kind == StmtKind::Let);
  REQUIRE(s.value->kind == ExprKind::Load);
  // A plain subscript load with a mask: only hl::load carries one.
  auto masked = std::make_shared<Expr>(*s.value);
  masked->operands.push_back(makeConst(1, true));
  s.value = masked;
  Verified v = verify(k);
  CHECK_FALSE(v.ok);
  CHECK(v.text.find("internal compiler error: invalid IR after test-stage: a masked load that is "
                    "not hl::load") != std::string::npos);
  // Two operands on a load: more than its kind carries.
  auto two = std::make_shared<Expr>(*masked);
  two->gatherAll = true;
  two->operands.push_back(makeConst(1, true));
  s.value = two;
  v = verify(k);
  CHECK_FALSE(v.ok);
  CHECK(v.text.find("a node with 2 operands (its kind has 0 to 1)") != std::string::npos);
  // A binary node that lost an operand.
  s.value = makeUnary(UnaryOp::Exp, makeConst(1, false));
  auto bin = std::make_shared<Expr>(*makeBinary(BinaryOp::Add, makeConst(1, false), makeConst(2, false)));
  bin->operands.pop_back();
  s.value = bin;
  v = verify(k);
  CHECK_FALSE(v.ok);
  CHECK(v.text.find("a node with 1 operands (its kind has 2)") != std::string::npos);
}

TEST_CASE("verifier reports bad ids and use before definition", "[verify]") {
  Kernel k = config::test::softmaxKernel(false);
  Stmt& s = firstStmt(k);
  s.value = makeVarRef(s.var); // the let reads the variable it defines
  Verified v = verify(k);
  CHECK_FALSE(v.ok);
  CHECK(v.text.find("used before its definition") != std::string::npos);
  s.value = makeParamRef(0); // x is a tensor
  v = verify(k);
  CHECK_FALSE(v.ok);
  CHECK(v.text.find("tensor parameter 'x' used as a scalar") != std::string::npos);
}

TEST_CASE("verifier wants types after infer-types", "[verify]") {
  Kernel k = config::test::softmaxKernel(false);
  Verified v = verify(k, /*typed=*/true);
  CHECK_FALSE(v.ok);
  CHECK(v.text.find("an untyped expression") != std::string::npos);
}
