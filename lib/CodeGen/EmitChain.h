//===- EmitChain.h - Two chained dots as the sm_90a chain template -*- C++ -*-===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"

namespace helion::codegen {

/// The chain template's program (EmittedKernel::chain, with chainLaunch set) for a
/// kernel with Kernel::chain and Kernel::chainParams; nullopt otherwise.
std::optional<EmittedKernel> emitChain(const ir::Kernel& kernel, const EmitOptions& options);

} // namespace helion::codegen
