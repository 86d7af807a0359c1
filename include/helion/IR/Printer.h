//===- helion/IR/Printer.h - Stable text form of the IR ----------*- C++ -*-===//
#pragma once

#include "helion/IR/IR.h"

#include <string>

namespace helion::ir {

/// Prints the kernel in the stable text form used by --dump-ir, --print-after and
/// the lit tests. Types are printed when infer-types has run.
std::string printKernel(const Kernel& kernel);
std::string printExpr(const Kernel& kernel, const Expr& expr);
std::string printType(const Kernel& kernel, const BlockType& type);

} // namespace helion::ir
