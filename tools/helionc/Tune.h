//===- Tune.h - helionc tune -----------------------------------------------===//
#pragma once

#include "Driver.h"
#include "helion/Tune/ArgSpec.h"

#include <string>

namespace helion::tool {

/// The benchmark program for one batch of candidates of kernel `k` at shape `args`
/// (bound: parameter order), around the host file `hostFile` (included by name).
/// TuneHarness.cpp documents its command line and output.
std::string harnessSource(const ir::Kernel& k, const tune::ArgSpec& args,
                          const std::string& hostFile);

void registerTune(CLI::App& app);

} // namespace helion::tool
