//===- InstantiationChecks.h - Dtypes an instantiation cannot take -*- C++ -*-===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <vector>

namespace helion::tool {

/// False (with a diagnostic at the call) when an hl::atomic_add of `k` targets a tensor
/// whose dtype in `sig` has no atomic add.
bool atomicDtypesOk(const ir::Kernel& k, const std::vector<ir::ScalarType>& sig,
                    DiagnosticEngine& diags);

/// False (with a diagnostic at the dot) when the tensor-core matmul of `ek` would
/// multiply 8-bit floats in a way the kernels do not take (InstantiationChecks.cpp).
bool matmulDtypesOk(const ir::Kernel& k, const codegen::EmittedKernel& ek,
                    const std::vector<ir::ScalarType>& sig, DiagnosticEngine& diags);

} // namespace helion::tool
