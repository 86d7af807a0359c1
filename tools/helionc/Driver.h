//===- Driver.h - What the helionc subcommands share -----------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/Driver/CompileCuda.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Frontend/Frontend.h"
#include "helion/Support/Diagnostics.h"
#include "helion/Transforms/Passes.h"

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace helion::tool {

/// Options every subcommand that reads a kernel file takes.
struct InputOptions {
  std::string file;
  std::string kernel;                 ///< --kernel NAME: only this kernel
  std::vector<std::string> clangArgs; ///< after `--`
};

/// A kernel after the analysis passes, with its spec.
struct AnalyzedKernel {
  frontend::ParsedKernel parsed;
  ir::Kernel typed; ///< after infer-types and hoist-blocks
  config::ConfigSpec spec;
};

/// Parses the file and runs the analysis part of the pipeline on each selected kernel,
/// printing the IR after the stages `pipeline` names. When pipeline.stopAfter names an
/// analysis stage, the kernels stop there and none is returned (an empty list).
/// `filesRead` receives every file the parse read (the kernel file and each header).
std::optional<std::vector<AnalyzedKernel>> analyze(const InputOptions& in,
                                                   const ir::PipelineOptions& pipeline,
                                                   std::string* fileText, DiagnosticEngine& diags,
                                                   std::vector<std::string>* filesRead = nullptr);

void addInputOptions(CLI::App& app, InputOptions& in);

/// The contents of a regular file, or nullopt and in `why` the reason (`no such file or
/// directory: 'x'`, `'x' is a directory, expected a file`, ...) when it is not one or
/// cannot be read.
std::optional<std::string> readFile(const std::string& path, std::string* why = nullptr);

/// How a job run by runInChild() ended: its exit code, the signal that killed it,
/// or the time limit.
struct ChildResult {
  enum class Kind { Exited, Signaled, TimedOut } kind;
  int code; ///< Exited: the job's result; Signaled: the signal
};

/// Runs `job` in a forked child, killed (SIGKILL) after `seconds` of wall-clock time
/// (0: no limit). Where fork fails, runs it in this process without a limit.
ChildResult runInChild(const std::function<int()>& job, double seconds);

/// Runs job(0) ... job(count - 1), each in a forked child killed after `seconds` (0: no
/// limit), at most `parallel` at a time; the results in job order.
std::vector<ChildResult> runInChildren(size_t count, const std::function<int(size_t)>& job,
                                       double seconds, int parallel);

/// Runs the program `argv` (PATH searched) with its stdout collected line by line into
/// `lines` and its stderr (the first 64 KB) into `err`, killed after `timeoutS`. Returns
/// its exit status, 128 + the signal that killed it, or -1 when it timed out.
int runProgram(const std::vector<std::string>& argv, double timeoutS,
               std::vector<std::string>& lines, std::string& err);

/// Writes `depfile` (atomically): a Makefile rule naming `targets` (the files a
/// compile wrote) and `prerequisites` (the files it read), each path as given.
/// Returns nullopt on success, else the error message.
std::optional<std::string> writeDepfile(const std::string& depfile,
                                        const std::vector<std::string>& targets,
                                        const std::vector<std::string>& prerequisites);

/// The version string `--version` prints, for the tool and each subcommand.
inline constexpr const char* kVersion = "helionc 0.1.0";

void registerCompile(CLI::App& app);
void registerSpec(CLI::App& app);

} // namespace helion::tool
