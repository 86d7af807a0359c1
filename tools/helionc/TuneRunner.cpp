//===- TuneRunner.cpp - Builds and runs helionc tune's benchmark programs --===//
//
// One benchmark program per batch of candidates: the batch's entries as one host file
// (codegen::rewriteHost, entry 0 the default config) and TuneHarness.cpp's main around
// it, built with the host C++ compiler (a precompiled header of the includes when it
// can be built), run in a child process; a run that dies in an entry marks it failed
// and starts again after it.
//===----------------------------------------------------------------------===//
#include "TuneRunner.h"

#include "helion/CodeGen/HostRewriter.h"
#include "helion/Config/BlockSizes.h"
#include "helion/Support/InstallPaths.h"
#include "helion/Tune/TuneCache.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#ifndef HELIONC_CUDA_INCLUDE_DIR
#define HELIONC_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif
#ifndef HELIONC_CUDA_LIB_DIR
#define HELIONC_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

namespace helion::tool {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Toolchain Toolchain::find() {
  auto env = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v && *v ? v : fallback);
  };
  return {env("HELIONC_CXX", "g++"), helionIncludeDir(), helionRuntimeLibrary(),
          env("HELIONC_CUDA_INCLUDE", HELIONC_CUDA_INCLUDE_DIR),
          env("HELIONC_CUDA_LIB", HELIONC_CUDA_LIB_DIR)};
}

BenchRunner::BenchRunner(const AnalyzedKernel& k, std::string file, const std::string& fileText,
                         DiagnosticEngine& diags, Log log, bool buildOnly)
    : k_(k), file_(std::move(file)), text_(fileText), diags_(diags), log_(std::move(log)),
      buildOnly_(buildOnly), tc_(Toolchain::find()) {}

void BenchRunner::startShape(const tune::ArgSpec& args, fs::path dir,
                             const config::ConfigSpec& spec, const HarnessOptions& harness) {
  args_ = &args;
  harness_ = harness;
  dir_ = std::move(dir);
  spec_ = &spec;
  builtAt_.clear();
}

void parseResults(const std::vector<std::string>& lines, std::vector<Measured>& out, int& begun,
                  int& next) {
  for (const std::string& l : lines) {
    std::istringstream in(l);
    std::string word;
    in >> word;
    if (word == "begin") {
      in >> begun;
    } else if (word == "result") {
      int e = -1;
      Measured m;
      in >> e >> m.status >> m.ms >> m.firstCallMs;
      double maxErr = 0;
      in >> maxErr;
      std::getline(in, m.message);
      if (m.status != "ok")
        m.ms = INFINITY;
      if (m.status == "mismatch")
        m.message = fmt::format("output differs from the default config's ({:.3g} x the "
                                "tolerance)",
                                maxErr);
      if (e >= 0 && e < static_cast<int>(out.size()))
        out[e] = m;
      begun = -1;
      next = e + 1;
    }
  }
}

std::vector<Measured> BenchRunner::retime(const std::vector<std::string>& texts, int reps) {
  std::map<fs::path, std::vector<std::pair<int, size_t>>> byProgram; // entry, leader
  for (size_t i = 0; i < texts.size(); ++i) {
    auto at = builtAt_.find(texts[i]);
    if (at == builtAt_.end())
      return {};
    byProgram[at->second.first].push_back({at->second.second, i});
  }
  std::vector<Measured> out(texts.size());
  auto r0 = Clock::now();
  for (const auto& [program, items] : byProgram) {
    std::string list;
    int maxEntry = 0;
    for (const auto& [entry, leader] : items) {
      list += (list.empty() ? "" : ",") + std::to_string(entry);
      maxEntry = std::max(maxEntry, entry);
    }
    std::vector<Measured> got(static_cast<size_t>(maxEntry) + 1);
    std::vector<std::string> lines;
    std::string err;
    int code = runProgram({program.string(), "--entries", list, std::to_string(reps)},
                          120 + 10.0 * static_cast<double>(items.size()), lines, err);
    int begun = -1, next = 0;
    parseResults(lines, got, begun, next);
    for (const auto& [entry, leader] : items) {
      out[leader] = got[entry];
      if (code != 0 && got[entry].status != "ok")
        out[leader].message = fmt::format("exit {}: {}", code, err.substr(0, 200));
    }
  }
  log_(fmt::format("  {} entries re-run in {} built programs: {:.1f} s", texts.size(),
                  byProgram.size(), std::chrono::duration<double>(Clock::now() - r0).count()));
  return out;
}

bool BenchRunner::build(const fs::path& dir, double& seconds) {
  const std::vector<std::string> flags = {"-std=c++23", "-O1", "-w", "-I" + tc_.include,
                                          "-I" + tc_.cudaInclude};
  if (!pchTried_) { // HELIONC_NO_PCH=1: every program parses its headers itself
    pchTried_ = true;
    const char* off = std::getenv("HELIONC_NO_PCH");
    std::string why;
    if (!(off && *off && std::string_view(off) != "0"))
      pch_ = harnessPch(tc_.cxx, flags, tc_.include, tune::TuneCache::defaultDirectory(), why);
    if (!pch_.empty())
      log_("precompiled header " + pch_ + ".gch");
    else if (!why.empty())
      log_("no precompiled header (" + why + ")");
  }
  std::vector<std::string> argv = {tc_.cxx};
  argv.insert(argv.end(), flags.begin(), flags.end());
  if (!pch_.empty())
    argv.insert(argv.end(), {"-include", pch_});
  argv.insert(argv.end(), {"-I" + dir.string(), (dir / "harness.cpp").string(),
                             tc_.runtimeLib, "-ldl",
                             "-Wl,--undefined=helion_rt_install_cuda_backend", "-o",
                             (dir / "harness").string()});
  std::vector<std::string> lines;
  std::string err;
  auto b0 = Clock::now();
  int rc = runProgram(argv, 600, lines, err);
  if (rc != 0) {
    diags_.error(fmt::format("building the benchmark program failed ({}): {}",
                             (dir / "harness.cpp").string(), err.substr(0, 2000)));
    return false;
  }
  seconds = std::chrono::duration<double>(Clock::now() - b0).count();
  return true;
}

std::vector<Measured> BenchRunner::measure(const std::vector<config::Config>& entries,
                              const std::vector<codegen::EmittedKernel>& emitted, int batchNo,
                              int reps) {
  fs::path dir = dir_ / fmt::format("batch{}", batchNo);
  fs::create_directories(dir);
  std::vector<codegen::HostKernel> hosts;
  for (size_t e = 0; e < entries.size(); ++e) {
    codegen::HostKernel hk{&k_.typed, &k_.parsed.host, &emitted[e], {}, {}, {}};
    hk.registerBlockSizes = config::blockSizeValues(k_.typed, entries[e]);
    hosts.push_back(hk);
  }
  const std::string stem = fs::path(file_).stem().string();
  std::ofstream(dir / (stem + ".helion.cpp"))
      << codegen::rewriteHost(fs::path(file_).filename().string(), text_, hosts);
  std::ofstream(dir / "harness.cpp")
      << harnessSource(k_.typed, *args_, stem + ".helion.cpp", harness_);
  double buildS = 0;
  if (!build(dir, buildS))
    return {};
  for (size_t e = 0; e < emitted.size(); ++e)
    builtAt_.try_emplace(emitted[e].source, dir / "harness", static_cast<int>(e));
  if (buildOnly_) {
    log_(fmt::format("built {} ({} entries, host compiler {:.1f} s); --build-only: not run",
                    (dir / "harness").string(), entries.size(), buildS));
    return {};
  }
  std::vector<Measured> out(entries.size());
  std::vector<std::string> lines;
  std::string err;
  // Entry 0 is the reference every run computes first; a run that dies there is fatal.
  int next = 0;
  auto r0 = Clock::now();
  while (next < static_cast<int>(entries.size())) {
    lines.clear();
    err.clear();
    int last = static_cast<int>(entries.size()) - 1;
    // HELIONC_TUNE_TIMEOUT: seconds per run of the benchmark program (a hang's cost);
    // else 120 s + 10 s an entry, and no more than 30 s past the search's deadline.
    const char* limit = std::getenv("HELIONC_TUNE_TIMEOUT");
    const double fixed = limit ? std::atof(limit) : 0;
    double timeout = fixed > 0 ? fixed : 120 + 10.0 * (last - next + 1);
    if (deadline_ && fixed <= 0) {
      const double left = std::chrono::duration<double>(*deadline_ - Clock::now()).count();
      timeout = std::min(timeout, std::max(30.0, left + 30.0));
    }
    int code = runProgram({(dir / "harness").string(), std::to_string(next), std::to_string(last),
                         std::to_string(reps)},
                        timeout, lines, err);
    int begun = -1;
    parseResults(lines, out, begun, next);
    if (code == 0)
      break;
    // Died (or hung) in entry `begun`: it fails, the run goes on after it.
    int dead = begun >= 0 ? begun : next;
    if (dead == 0 && out[0].status != "ok") {
      diags_.error(fmt::format("the benchmark program failed on the default config (exit {}): "
                               "{}",
                               code, err.substr(0, 1000)));
      return {};
    }
    out[dead].status = code == -1 ? "timeout" : "crash";
    out[dead].message = fmt::format("exit {}: {}", code, err.substr(0, 200));
    next = dead + 1;
    if (next == 0)
      next = 1;
  }
  for (size_t e = 0; e < out.size(); ++e) // failures are reported, never chosen
    if (out[e].status != "ok")
      log_(fmt::format("  candidate {} failed ({}): {}", config::formatConfig(entries[e], *spec_),
                      out[e].status, out[e].message.substr(0, 200)));
  log_(fmt::format("  {} entries: host compiler {:.1f} s, run (NVRTC + checks + timing) {:.1f} s",
                  entries.size(), buildS,
                  std::chrono::duration<double>(Clock::now() - r0).count()));
  return out;
}
} // namespace helion::tool
