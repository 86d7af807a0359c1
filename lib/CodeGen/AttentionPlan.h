//===- AttentionPlan.h - Recognized flash attention, for the emitter -*- C++ -*-===//
//
// The flash-attention pattern (lib/Transforms/AttentionRecognizer.h) is recognized by
// the recognize-templates pass and its config mapped by template-plan; the emitter
// (EmitAttention.cpp, EmitAttentionFunctors.cpp, AttentionLauncher.cpp) prints the
// result.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/IR/TemplateMatch.h"
#include "helion/Support/Diagnostics.h"

#include <optional>
#include <vector>

namespace helion::codegen {

/// What the attention emitter prints: the recognized loop (Kernel::attention, the
/// recognize-templates pass) with the template's parameters (Kernel::flash,
/// template-plan).
struct AttentionPlan : ir::AttentionMatch {
  ir::AttentionParams flash;
};

/// The plan of a kernel the passes recognized as flash attention; nullopt after
/// reporting an internal error when they did not (the pipeline did not run).
std::optional<AttentionPlan> planAttention(const ir::Kernel& kernel, DiagnosticEngine& diags);

} // namespace helion::codegen
