//===- EmitMatmul.h - A tensor-core matmul as a device-library GEMM -*- C++ -*-===//
#pragma once

#include "MatmulPlan.h"
#include "helion/CodeGen/CudaEmitter.h"

namespace helion::codegen {

/// Emits a kernel with `hl::dot` (MatmulPlan.h says which ones) as instantiations of
/// hd::Gemm / hd::GemmSm80; reports unsupported patterns and configs and yields nullopt.
std::optional<EmittedKernel> emitMatmul(const ir::Kernel& kernel, const config::Config& config,
                                        const EmitOptions& options, DiagnosticEngine& diags);

} // namespace helion::codegen
