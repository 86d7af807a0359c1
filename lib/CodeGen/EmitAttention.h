//===- EmitAttention.h - Flash attention as a device-library kernel -*- C++ -*-===//
#pragma once

#include "AttentionPlan.h"
#include "helion/CodeGen/CudaEmitter.h"

namespace helion::codegen {

/// Emits a kernel with a batched `hl::dot` (the recognize-templates pass says which ones) as an
/// instantiation of hd::AttentionSm80 (and of hd::AttentionSm90 when Kernel::flash
/// says so) with score and epilogue functors made from the IR; reports unsupported
/// patterns and yields nullopt.
std::optional<EmittedKernel> emitAttention(const ir::Kernel& kernel, const EmitOptions& options,
                                           DiagnosticEngine& diags);

} // namespace helion::codegen
