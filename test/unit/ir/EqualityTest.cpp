// Structural equality and hashing: fields and children count, locations and types do not.
#include "../config/TestKernels.h"
#include "helion/IR/Equality.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace helion;
using namespace helion::ir;

namespace {

ExprRef sample(SourceLoc loc = {}) {
  return makeBinary(BinaryOp::Add, makeUnary(UnaryOp::Exp, makeVarRef(0, loc), loc),
                    makeConst(1, false, loc), loc);
}

} // namespace

TEST_CASE("equal trees built apart are equal and hash alike", "[ir][equality]") {
  ExprRef a = sample(), b = sample({"k.cpp", 3, 4});
  CHECK(a != b);
  CHECK(structurallyEqual(a, b));
  CHECK(structuralHash(*a) == structuralHash(*b));
  // Types are ignored too.
  ExprRef typed = withType(a, BlockType{ElemType::concrete(ScalarType::F32), {}});
  CHECK(structurallyEqual(a, typed));
}

TEST_CASE("each field and child makes a difference", "[ir][equality]") {
  ExprRef a = sample();
  CHECK_FALSE(structurallyEqual(a, makeBinary(BinaryOp::Sub, a->operands[0], a->operands[1])));
  CHECK_FALSE(structurallyEqual(
      a, makeBinary(BinaryOp::Add, makeUnary(UnaryOp::Log, makeVarRef(0)), makeConst(1, false))));
  CHECK_FALSE(structurallyEqual(
      a, makeBinary(BinaryOp::Add, makeUnary(UnaryOp::Exp, makeVarRef(1)), makeConst(1, false))));
  CHECK_FALSE(structurallyEqual(
      a, makeBinary(BinaryOp::Add, a->operands[0], makeConst(1, true)))); // isInt
  CHECK_FALSE(structurallyEqual(a, makeBinary(BinaryOp::Add, a->operands[1], a->operands[0])));
  // Fields the hand comparison the attention recognizer had left out: keepdim, subscript values.
  CHECK_FALSE(structurallyEqual(makeReduce(ReduceOp::Max, a, 1, true),
                                makeReduce(ReduceOp::Max, a, 1, false)));
  CHECK(structurallyEqual(makeLoad(0, {Index::scalar(makeConst(2, true)), Index::all()}),
                          makeLoad(0, {Index::scalar(makeConst(2, true)), Index::all()})));
  CHECK_FALSE(structurallyEqual(makeLoad(0, {Index::scalar(makeConst(2, true))}),
                                makeLoad(0, {Index::scalar(makeConst(3, true))})));
  CHECK_FALSE(structurallyEqual(makeLoad(0, {Index::ofTile(0)}), makeLoad(0, {Index::ofTile(1)})));
  CHECK(structurallyEqual(ExprRef(), ExprRef()));
  CHECK_FALSE(structurallyEqual(a, ExprRef()));
}

TEST_CASE("constants compare by value, NaN equal to NaN", "[ir][equality]") {
  CHECK(structurallyEqual(makeConst(NAN, false), makeConst(NAN, false)));
  CHECK(structuralHash(*makeConst(NAN, false)) == structuralHash(*makeConst(NAN, false)));
  CHECK(structurallyEqual(makeConst(0.0, false), makeConst(-0.0, false)));
  CHECK(structuralHash(*makeConst(0.0, false)) == structuralHash(*makeConst(-0.0, false)));
  CHECK_FALSE(structurallyEqual(makeConst(1, false), makeConst(2, false)));
}

TEST_CASE("statements compare with their bodies", "[ir][equality]") {
  Kernel a = config::test::matmulKernel(), b = config::test::matmulKernel();
  CHECK(a.body[0] != b.body[0]);
  CHECK(structurallyEqual(*a.body[0], *b.body[0]));
  CHECK_FALSE(structurallyEqual(*a.body[0], *config::test::tiledKernel().body[0]));
}
