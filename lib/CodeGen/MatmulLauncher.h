//===- MatmulLauncher.h - Host launcher of a tensor-core matmul -*- C++ -*-===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <functional>
#include <string>

namespace helion::codegen {

/// The launcher function of a kernel emitted by emitMatmul (HostKernel::emitted->matmul
/// is set): checks, tensor maps, dynamic shared memory, grid, and the sm90 / sm80 choice.
/// `hostExpr` spells a scalar IR expression (an extent) in host C++.
std::string matmulLauncher(const HostKernel& hk, const std::string& fileName,
                           const std::function<std::string(const ir::Expr&)>& hostExpr,
                           const std::string& launcherName);

/// The launcher's checks of the extents and operands (MatmulOperandChecks.cpp): the
/// statements that define M, N, K (and B or G) and check every tensor argument.
std::string matmulOperandChecks(const HostKernel& hk,
                                const std::function<std::string(const ir::Expr&)>& hostExpr);

} // namespace helion::codegen
