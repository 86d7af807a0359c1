//===- AttentionLauncher.h - Host launcher of flash attention ---*- C++ -*-===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <functional>
#include <string>

namespace helion::codegen {

/// The launcher function of a kernel emitted by emitAttention (HostKernel::emitted->
/// attention is set): shape, dtype and alignment checks, shared memory, grid.
/// `hostExpr` spells a scalar IR expression (an extent) in host C++.
std::string attentionLauncher(const HostKernel& hk, const std::string& fileName,
                              const std::function<std::string(const ir::Expr&)>& hostExpr,
                           const std::string& launcherName);

} // namespace helion::codegen
