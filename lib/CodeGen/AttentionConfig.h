//===- AttentionConfig.h - The config of flash attention -----------*- C++ -*-===//
//
// Which device-library kernel a config asks for, and its template arguments:
//
//   indexing all tensor_descriptor -> AttentionSm90 (TMA + wgmma, sm_90a), with
//                                     AttentionSm80's default as the fallback the
//                                     launcher takes off compute capability 9.x
//   otherwise (pointer / block_ptr) -> AttentionSm80 (cp.async + mma.sync)
//
// Lib/Config/Validate.cpp reports the same rules with the JSON path; these checks
// are the backstop for configs that did not come through it.
//===----------------------------------------------------------------------===//
#pragma once

#include "AttentionPlan.h"
#include "helion/Config/AttentionSmem.h"

namespace helion::codegen {

/// Fills the kernel choice and the config fields of `plan` (its tiles and head dim
/// must be set); reports each unsupported key at the grid loop and returns false.
bool mapAttentionConfig(const ir::Kernel& kernel, const config::Config& config,
                        AttentionPlan& plan, DiagnosticEngine& diags);

using config::attentionSm90SmemBytes; // helion/Config/AttentionSmem.h

} // namespace helion::codegen
