//===- DeviceCompile.h - NVRTC jobs of helionc compile ----------*- C++ -*-===//
//
// `--emit cubin/ptx` and `--aot-arch` compile instantiations with
// helion::rt::compile, the runtime's own NVRTC path and disk cache (so an image
// built here is the one the launcher would build at run time), each in a forked
// child killed after HELIONC_NVRTC_TIMEOUT seconds, several at a time.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"
#include "helion/CodeGen/Instantiations.h"
#include "helion/Support/Diagnostics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helion::tool {

struct DeviceJob {
  std::string source;      ///< CUDA C++
  std::string programName; ///< NVRTC's program name (it is in the cubin's line info)
  std::string name;        ///< the name expression to instantiate
  std::string arch;        ///< "sm_90a"
  std::string kernel;      ///< the helionc kernel, for diagnostics
  bool wantPtx = false;
};

struct DeviceOutput {
  std::string cubin, ptx;
  std::string lowered; ///< the mangled name of `name`
  double seconds = 0;  ///< NVRTC time (or reading the cache)
  bool cacheHit = false;
};

/// HELIONC_NVRTC_TIMEOUT in seconds (default 120, 0: no limit), or nullopt and an
/// error when it is not a number >= 0.
std::optional<double> nvrtcTimeout(DiagnosticEngine& diags);

/// Compiles every job, `parallel` at a time. On any failure (reported against
/// `file`) returns nullopt, after the other jobs have finished. `showLog`: NVRTC's log
/// of each compile that succeeds (its warnings, ptxas's notes) is printed as a note.
std::optional<std::vector<DeviceOutput>> compileDeviceJobs(const std::vector<DeviceJob>& jobs,
                                                           int parallel, const std::string& file,
                                                           DiagnosticEngine& diags,
                                                           bool showLog = false);

/// What `--aot-arch` embeds: each architecture x each dtype signature x the hints.
struct AotRequest {
  std::vector<std::string> archs;
  std::vector<codegen::DtypeSpec> dtypes;
  codegen::InstantiationHints hints;
  int parallel = 1;
  /// Entries of a shape-keyed config file also embed their own shape key's row length
  /// (the sizes they were tuned for); the default entries helionc makes do not.
  bool ownShapes = false;
};

/// The NVRTC jobs of every launcher of `hosts` (AotImages.cpp): each compiles an
/// instantiation for program `programName` (the launchers' KernelSpec::programName),
/// whose image goes to the table `symbols[owners[i]]`.
struct AotPlan {
  std::vector<DeviceJob> jobs;
  std::vector<const codegen::EmittedKernel*> owners;
  std::map<const codegen::EmittedKernel*, std::string> symbols;
};
AotPlan planAotImages(const std::vector<codegen::HostKernel>& hosts, const AotRequest& request,
                      const std::string& programName);

/// Runs the plan's jobs, `parallel` at a time; nullopt after errors. `showLog` as for
/// compileDeviceJobs.
std::optional<codegen::AotImageMap> compileAotImages(const AotPlan& plan, int parallel,
                                                     const std::string& file,
                                                     DiagnosticEngine& diags,
                                                     bool showLog = false);

} // namespace helion::tool
