//===- ResourceCheck.h - Configs too large to compile (private) -*- C++ -*-===//
#pragma once

#include "helion/Config/UnrolledSize.h"
#include "helion/Support/Diagnostics.h"

#include <string>

namespace helion::driver {

using config::estimateUnrolledSize;
using config::kMaxUnrolledOps;
using config::UnrolledSize;

/// False, with an error at the loop naming the config keys, when a tile loop's body
/// unrolls to more than kMaxUnrolledOps operations per thread under `config`
/// (config::estimateUnrolledSize): NVRTC would take minutes to hours on it. `variant`
/// ("" or "for long rows, ...") says which of a kernel's programs it is.
bool checkUnrolledSize(const ir::Kernel& kernel, const config::Config& config, int numThreads,
                       const std::string& variant, DiagnosticEngine& diags);

} // namespace helion::driver
