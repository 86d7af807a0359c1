//===- ChainLauncher.h - Host launcher of the chain template ----*- C++ -*-===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <functional>
#include <string>

namespace helion::codegen {

/// The function `static bool NAME(params...)` that launches the chain kernel of a
/// generic kernel (HostKernel::emitted->chain is set) and returns true, or returns
/// false when the device or the tensors do not fit it (ChainLauncher.cpp).
std::string chainLauncher(const HostKernel& hk, const std::string& fileName,
                          const std::function<std::string(const ir::Expr&)>& hostExpr,
                          const std::string& launcherName);

} // namespace helion::codegen
