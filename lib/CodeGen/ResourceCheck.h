//===- ResourceCheck.h - Configs too large to compile (private) -*- C++ -*-===//
#pragma once

#include "helion/Config/Config.h"
#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <string>

namespace helion::codegen {

/// Most unrolled operations per thread in one tile loop's body (see ResourceCheck.cpp).
inline constexpr int64_t kMaxUnrolledOps = 4096;

/// The costliest tile loop body under `config`: its loop, its estimated unrolled
/// operations per thread, and the elements per thread of its widest operation.
struct UnrolledSize {
  const ir::Stmt* loop = nullptr;
  int64_t ops = 0;
  int64_t elems = 0;
};
UnrolledSize estimateUnrolledSize(const ir::Kernel& kernel, const config::Config& config,
                                  int numThreads);

/// False, with an error at the loop naming the config keys, when a tile loop's body
/// unrolls to more than kMaxUnrolledOps operations per thread under `config`:
/// NVRTC would take minutes to hours on it. `variant` ("" or "for long rows, ...")
/// says which of a kernel's programs it is.
bool checkUnrolledSize(const ir::Kernel& kernel, const config::Config& config, int numThreads,
                       const std::string& variant, DiagnosticEngine& diags);

} // namespace helion::codegen
