//===- TuneRunner.h - Builds and runs helionc tune's benchmark programs ----===//
#pragma once

#include "Tune.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helion::tool {

/// Where the benchmark program's pieces come from: helionc's headers and runtime as
/// InstallPaths.h finds them (beside the executable, or this build's), the CUDA
/// toolkit's compiled-in paths; each replaceable by an environment variable.
struct Toolchain {
  std::string cxx, include, runtimeLib, cudaInclude, cudaLib;
  static Toolchain find();
};

/// One measured entry of a benchmark-program run.
struct Measured {
  std::string status = "crash"; ///< ok, mismatch, error, crash, timeout
  double ms = INFINITY;
  double firstCallMs = 0;
  std::string message;
};

/// Reads the benchmark program's `begin E` / `result E STATUS MS FIRST_MS ERR [MSG]`
/// lines into `out`; `begun` is the entry begun and not finished (-1 if none), `next`
/// the entry after the last result.
void parseResults(const std::vector<std::string>& lines, std::vector<Measured>& out, int& begun,
                  int& next);

/// Builds the benchmark programs (TuneHarness.cpp) of one kernel, one shape at a time,
/// runs them in child processes (a crash or a hang costs the entry it hit, the program
/// restarts after it) and remembers which program holds each CUDA text, so leaders are
/// re-timed without building again.
class BenchRunner {
public:
  using Log = std::function<void(const std::string&)>;
  BenchRunner(const AnalyzedKernel& k, std::string file, const std::string& fileText,
              DiagnosticEngine& diags, Log log, bool buildOnly);

  /// Starts a shape: programs go under `dir`; forgets the programs of the last shape.
  void startShape(const tune::ArgSpec& args, std::filesystem::path dir,
                  const config::ConfigSpec& spec, const HarnessOptions& harness);

  /// The search's deadline: a run of a benchmark program that starts near or past it
  /// is given only until 30 s after it (at least 30 s), so a hung candidate costs
  /// seconds past the budget, not the 120 s + 10 s an entry a run is otherwise given.
  void setDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }

  /// Builds the program over `entries` (entry 0 the reference) and runs every entry
  /// with `reps` repeats; index i of the result is entry i. Empty when the program does
  /// not build (reported), when entry 0 fails (reported) or with --build-only.
  std::vector<Measured> measure(const std::vector<config::Config>& entries,
                                const std::vector<codegen::EmittedKernel>& emitted, int batchNo,
                                int reps);

  /// Times the CUDA texts `texts` again with `reps` repeats in the programs that already
  /// hold them (no host compiler run): one run per program, listing its entries. The
  /// default config (texts[0]) is timed in the first program used. Empty when some text
  /// was never built (then the caller builds a program for them).
  std::vector<Measured> retime(const std::vector<std::string>& texts, int reps);

private:
  /// Builds `dir`/harness; false (reported) when the host compiler fails.
  bool build(const std::filesystem::path& dir, double& seconds);

  const AnalyzedKernel& k_;
  std::string file_;
  const std::string& text_;
  DiagnosticEngine& diags_;
  Log log_;
  bool buildOnly_;
  Toolchain tc_;
  const tune::ArgSpec* args_ = nullptr;
  std::filesystem::path dir_;
  const config::ConfigSpec* spec_ = nullptr;
  HarnessOptions harness_;
  /// The benchmark program and entry that hold each CUDA text built for this shape.
  std::map<std::string, std::pair<std::filesystem::path, int>> builtAt_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  bool pchTried_ = false;
  std::string pch_; ///< the precompiled header to -include, or "" for none
};

} // namespace helion::tool
