//===- helion/IR/Equality.h - Structural equality and hashing ----*- C++ -*-===//
//
// Two expressions are structurally equal when they have the same kind, the same
// fields (op, constant, param, var, tile, dims, cast type, subscripts, shape) and
// structurally equal children. Source locations and inferred types are ignored: two
// `let`s computing the same value from different lines are equal. The hash agrees
// with the equality (equal trees hash alike), so trees can key a hash map.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <cstddef>

namespace helion::ir {

bool structurallyEqual(const Expr& a, const Expr& b);
/// Null-safe: two nulls are equal, a null and a node are not.
bool structurallyEqual(const ExprRef& a, const ExprRef& b);
/// Statements: kind, fields, expressions and bodies (locations and types ignored).
bool structurallyEqual(const Stmt& a, const Stmt& b);

size_t structuralHash(const Expr& e);

} // namespace helion::ir
