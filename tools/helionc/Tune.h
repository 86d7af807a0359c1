//===- Tune.h - helionc tune -----------------------------------------------===//
#pragma once

#include "Driver.h"
#include "helion/Tune/ArgSpec.h"

#include <filesystem>
#include <string>
#include <vector>

namespace helion::tool {

/// What the benchmark program needs to know of the kernel beyond its parameters.
struct HarnessOptions {
  /// The kernel uses hl::dot: outputs are compared with the tensor-core tolerance
  /// (f32 2e-2 as tf32 operands, f16 2e-2, bf16 5e-2; else 1e-4, 1e-2, 3e-2).
  bool tensorCore = false;
  /// Floating-point operations of one call (tune::dotFlops), 0 when not counted: the
  /// program then prints TFLOP/s after each time.
  double flops = 0;
};

/// The benchmark program for one batch of candidates of kernel `k` at shape `args`
/// (bound: parameter order), around the host file `hostFile` (included by name).
/// TuneHarness.cpp documents its command line and output.
std::string harnessSource(const ir::Kernel& k, const tune::ArgSpec& args,
                          const std::string& hostFile, const HarnessOptions& options = {});

/// The #include lines every benchmark program starts with (and its precompiled header holds).
std::string harnessIncludes();

/// A precompiled header of harnessIncludes() for `cxx` with `flags`, built once into
/// `cacheDir` and reused while the compiler, the flags and every header under
/// `includeDir`/helion are unchanged (its directory name is their digest). Returns the
/// header to name with `-include`, or "" when it cannot be built (`why` says why): the
/// benchmark programs then build without it.
std::string harnessPch(const std::string& cxx, const std::vector<std::string>& flags,
                       const std::string& includeDir, const std::filesystem::path& cacheDir,
                       std::string& why);

void registerTune(CLI::App& app);

} // namespace helion::tool
