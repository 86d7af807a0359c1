//===- helion/Transforms/Passes.h - The lowering pipeline --------*- C++ -*-===//
//
// Each pass is one free function in its own file, `Kernel pass(const Kernel&,
// PassContext&)`. `pipeline()` lists them once, in order; the CLI runs it and
// prints the IR after any pass named by --print-after.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <functional>
#include <string>
#include <vector>

namespace helion::config {
struct Config;
}

namespace helion::ir {

struct PassContext {
  DiagnosticEngine& diags;
  const config::Config* config = nullptr; ///< null before the config is known
};

using PassFn = std::function<Kernel(const Kernel&, PassContext&)>;
struct Pass {
  const char* name; ///< the --print-after spelling, e.g. "infer-types"
  const char* summary;
  PassFn run;
};

/// Types every expression (dims and element types) and finds the reduction axes.
/// Reports broadcasting and rank errors at their locations.
Kernel inferTypes(const Kernel& kernel, PassContext& ctx);

/// Hoists loads, reductions, creations and dots out of expression trees into their
/// own `let`s, so every remaining expression is elementwise.
Kernel hoistBlocks(const Kernel& kernel, PassContext& ctx);

/// Checks the IR's structural invariants (Verify.cpp) and reports each violation as an
/// internal compiler error naming `stage` (the pass that ran last). `typed`: the kernel
/// has been through infer-types. Returns true when the kernel is valid.
bool verifyKernel(const Kernel& kernel, DiagnosticEngine& diags, const std::string& stage,
                  bool typed);

/// The passes that run before the config is applied (need no config).
const std::vector<Pass>& analysisPipeline();

} // namespace helion::ir
