//===- Tune.cpp - helionc tune ---------------------------------------------===//
//
// Finds the fastest correct config of one kernel at the shapes given by --args:
//
//   parse once -> search (lib/Tune) proposes a batch of configs -> each is emitted to
//   CUDA in-process, duplicates (identical CUDA) measured once -> the batch becomes the
//   entries of one host file (entry 0 = the default config, the reference) and a
//   benchmark program around it (TuneHarness.cpp), built with the host C++ compiler ->
//   the program runs in a child process: every entry checked against the default's
//   outputs on NaN-poisoned outputs, then timed with CUDA events (L2 flushed, median);
//   a crash or a hang costs the entry it hit, the program restarts after it ->
//   costs go back to the search -> the leaders are timed again with more repeats ->
//   the best config is merged into -o (atomically) and stored in the result cache.
//===----------------------------------------------------------------------===//
#include "Tune.h"

#include "helion/CodeGen/HostRewriter.h"
#include "helion/Config/BlockSizes.h"
#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Support/InstallPaths.h"
#include "helion/Tune/Dedup.h"
#include "helion/Tune/Search.h"
#include "helion/Tune/TuneCache.h"
#include "helion/Tune/TunedFile.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/Driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <unistd.h>

#ifndef HELIONC_CUDA_INCLUDE_DIR
#define HELIONC_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif
#ifndef HELIONC_CUDA_LIB_DIR
#define HELIONC_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

namespace helion::tool {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct TuneOptions {
  InputOptions in;
  std::vector<std::string> args; ///< one per --args: one shape each
  std::string effort = "quick";
  double budget = 0; ///< seconds; 0 = the effort's
  std::string search = "pattern";
  std::string out = "best.json";
  bool force = false;
  std::string workDir;
  int batch = 16;
  bool buildOnly = false; ///< build the first benchmark program, run nothing
};

/// Where the harness's pieces come from: helionc's headers and runtime as
/// InstallPaths.h finds them (beside the executable, or this build's), the CUDA
/// toolkit's compiled-in paths; each replaceable by an environment variable.
struct Toolchain {
  std::string cxx, include, runtimeLib, cudaInclude, cudaLib;
  static Toolchain find() {
    auto env = [](const char* name, const char* fallback) {
      const char* v = std::getenv(name);
      return std::string(v && *v ? v : fallback);
    };
    return {env("HELIONC_CXX", "g++"), helionIncludeDir(), helionRuntimeLibrary(),
            env("HELIONC_CUDA_INCLUDE", HELIONC_CUDA_INCLUDE_DIR),
            env("HELIONC_CUDA_LIB", HELIONC_CUDA_LIB_DIR)};
  }
};

/// One measured entry of a harness run.
struct Measured {
  std::string status = "crash"; ///< ok, mismatch, error, crash, timeout
  double ms = INFINITY;
  double firstCallMs = 0;
  std::string message;
};

class Tuner {
public:
  Tuner(const TuneOptions& o, const AnalyzedKernel& k, const std::string& fileText,
        DiagnosticEngine& diags)
      : o_(o), k_(k), text_(fileText), diags_(diags), tc_(Toolchain::find()), t0_(Clock::now()) {}

  /// Tunes one shape; returns the best config, or nullopt after reporting why.
  std::optional<config::Config> tune(const tune::ArgSpec& args, const fs::path& dir,
                                     double& defaultMs, double& bestMs, size_t& compiled,
                                     size_t& timed) {
    args_ = &args;
    dir_ = dir;
    builtAt_.clear();
    fs::create_directories(dir_);
    // The spec for these sizes: block sizes capped by their extents, and the default
    // config (the search's start, and what the tuned one is compared with) for them.
    std::map<std::string, std::vector<int64_t>> tensors;
    std::map<std::string, int64_t> scalars;
    for (const tune::Arg& a : args.args) {
      if (a.isTensor())
        tensors[a.name] = a.tensor().sizes;
      else if (auto i = std::get_if<int64_t>(&a.scalar()))
        scalars[a.name] = *i;
    }
    spec_ = config::ConfigSpec::fromKernel(k_.typed, config::sizeHintsFor(k_.typed, tensors, scalars));
    const config::ConfigSpec& spec = spec_;
    auto effort = tune::parseEffort(o_.effort).value_or(tune::Effort::Quick);
    tune::SearchOptions so = tune::optionsFor(effort);
    // Each batch costs one host-compiler run: fewer, larger batches for quick.
    so.maxCandidates = effort == tune::Effort::Quick ? 48 : 400;
    double budget = o_.budget > 0 ? o_.budget : (effort == tune::Effort::Quick ? 22 : 300);
    // The budget is per shape: it starts now, not when the command did.
    so.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(budget));
    auto search = tune::makeSearch(o_.search, spec, so);
    const config::Config def = spec.defaultConfig();
    std::map<std::string, double> costByText; // identical CUDA: measured once
    std::vector<tune::Evaluation> measured;   // every entry timed, proposed or not
    int batchNo = 0;
    double lastBatchS = 0; // a batch that would end past the deadline is not begun
    while (!search->done()) {
      if (batchNo > 0 && Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(lastBatchS)) >
                             *so.deadline) {
        log(fmt::format("stopping: another batch (~{:.1f} s) would overrun the budget", lastBatchS));
        break;
      }
      std::vector<config::Config> batch = search->next(static_cast<size_t>(o_.batch));
      if (batch.empty())
        break;
      ++batchNo;
      const auto batchStart = Clock::now();
      // Emit every candidate; the ones whose CUDA was seen before take its cost.
      std::vector<config::Config> entries = {def};
      std::vector<std::string> texts;
      std::vector<int> entryOf(batch.size(), -1);
      std::vector<codegen::EmittedKernel> emitted;
      size_t dups = 0, rejected = 0;
      std::vector<double> knownCost(batch.size(), NAN);
      auto defEmitted = emit(def);
      if (!defEmitted) {
        diags_.error("the default config of '" + k_.typed.name + "' does not compile");
        return std::nullopt;
      }
      emitted.push_back(std::move(*defEmitted));
      texts.push_back(emitted.back().source);
      for (size_t i = 0; i < batch.size(); ++i) {
        auto ek = emit(batch[i]);
        if (!ek) {
          knownCost[i] = INFINITY;
          ++rejected;
          continue;
        }
        auto seen = costByText.find(ek->source);
        auto inBatch = std::find(texts.begin(), texts.end(), ek->source);
        if (seen != costByText.end()) {
          knownCost[i] = seen->second;
          ++dups;
        } else if (inBatch != texts.end()) {
          entryOf[i] = static_cast<int>(inBatch - texts.begin());
          ++dups;
        } else {
          entryOf[i] = static_cast<int>(entries.size());
          entries.push_back(batch[i]);
          texts.push_back(ek->source);
          emitted.push_back(std::move(*ek));
        }
      }
      // A small batch (the first is the default alone, while the search waits for its
      // cost; pattern search often proposes one or two) is padded with neighbours of
      // the best config so far and of the batch's own: one benchmark program measures
      // them together, and their costs are found by CUDA text when the search proposes
      // them, instead of a program (3-5 s of host compiler) per step.
      std::vector<config::Config> seeds = {search->best().value_or(def)};
      seeds.insert(seeds.end(), batch.begin(), batch.end());
      for (const config::Config& s : seeds)
        for (const config::Config& n : config::neighbors(s, spec)) {
          if (entries.size() >= static_cast<size_t>(o_.batch) + 1)
            break;
          auto ek = emit(n);
          if (!ek || std::find(texts.begin(), texts.end(), ek->source) != texts.end() ||
              costByText.count(ek->source))
            continue;
          entries.push_back(n);
          texts.push_back(ek->source);
          emitted.push_back(std::move(*ek));
        }
      std::vector<Measured> m;
      if (entries.size() == 1 && batchNo > 1) { // every candidate's cost is known
        m.resize(1);
        m[0].status = "ok";
        m[0].ms = defaultMs;
      } else {
        m = measure(entries, emitted, batchNo, 3);
      }
      if (o_.buildOnly)
        return std::nullopt;
      for (size_t e = 1; e < entries.size(); ++e) { // every measured text, proposed or not
        costByText[texts[e]] = m.size() > e && m[e].status == "ok" ? m[e].ms : INFINITY;
        measured.push_back({entries[e], costByText[texts[e]]});
      }
      compiled += entries.size() - 1;
      for (size_t e = 1; e < m.size(); ++e)
        if (m[e].status == "ok")
          ++timed;
      if (m.empty())
        return std::nullopt;
      if (m[0].status == "ok")
        defaultMs = m[0].ms;
      size_t failed = 0;
      for (size_t i = 0; i < batch.size(); ++i) {
        double cost = !std::isnan(knownCost[i]) ? knownCost[i]
                      : entryOf[i] >= 0 && m[entryOf[i]].status == "ok" ? m[entryOf[i]].ms
                                                                        : INFINITY;
        if (entryOf[i] >= 0) {
          costByText[texts[entryOf[i]]] = cost;
          if (m[entryOf[i]].status != "ok")
            ++failed;
        }
        search->report(batch[i], cost);
      }
      double best = search->bestCost();
      if (entries.size() > 1)
        lastBatchS = std::chrono::duration<double>(Clock::now() - batchStart).count();
      log(fmt::format("batch {}: {} candidates ({} compiled, {} duplicate CUDA, {} rejected by "
                      "the emitter, {} failed); best {:.4f} ms, default {:.4f} ms ({:.2f}x)",
                      batchNo, batch.size(), entries.size() - 1, dups, rejected, failed, best,
                      defaultMs, defaultMs / best));
    }
    std::optional<config::Config> best = search->best();
    bool anyMeasured = std::any_of(measured.begin(), measured.end(),
                                   [](const tune::Evaluation& e) { return std::isfinite(e.cost); });
    if (!best && !anyMeasured) {
      diags_.error("no candidate of '" + k_.typed.name + "' ran correctly");
      return std::nullopt;
    }
    // Leaders timed again, with more repeats, next to the default.
    std::vector<tune::Evaluation> evals = search->evaluations();
    evals.insert(evals.end(), measured.begin(), measured.end());
    std::sort(evals.begin(), evals.end(),
              [](const tune::Evaluation& a, const tune::Evaluation& b) { return a.cost < b.cost; });
    std::vector<config::Config> leaders = {def};
    std::vector<codegen::EmittedKernel> emitted;
    emitted.push_back(*emit(def));
    std::vector<std::string> taken = {config::formatConfig(def, spec)};
    for (const tune::Evaluation& e : evals) {
      if (leaders.size() >= 4 || !std::isfinite(e.cost))
        break;
      std::string text = config::formatConfig(e.config, spec);
      if (std::find(taken.begin(), taken.end(), text) != taken.end())
        continue;
      taken.push_back(text);
      auto ek = emit(e.config);
      if (!ek)
        continue;
      leaders.push_back(e.config);
      emitted.push_back(std::move(*ek));
    }
    std::vector<std::string> leaderTexts;
    for (const codegen::EmittedKernel& ek : emitted)
      leaderTexts.push_back(ek.source);
    std::vector<Measured> m = retime(leaderTexts, 20);
    if (m.empty())
      m = measure(leaders, emitted, 0, 20);
    size_t winner = 0;
    for (size_t i = 1; i < m.size(); ++i)
      if (m[i].status == "ok" && m[i].ms < m[winner].ms)
        winner = i;
    defaultMs = m.empty() ? defaultMs : m[0].ms;
    bestMs = m.empty() ? search->bestCost() : m[winner].ms;
    log(fmt::format("re-timed {} leaders (20 repeats): best {:.4f} ms, default {:.4f} ms",
                    leaders.size() - 1, bestMs, defaultMs));
    return leaders[winner];
  }

  void log(const std::string& line) const {
    double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    std::cerr << fmt::format("[{:.1f}s] {}\n", s, line);
  }

private:
  std::optional<codegen::EmittedKernel> emit(const config::Config& c) {
    std::ostringstream sink; // the emitter's complaints about a candidate: a rejection
    DiagnosticEngine quiet(sink);
    codegen::EmitOptions eo;
    eo.sourceFile = o_.in.file;
    eo.configJson = config::formatConfig(c, spec_);
    if (!config::validate(c, spec_).empty())
      return std::nullopt;
    return codegen::emitCuda(k_.typed, c, eo, quiet);
  }

  /// Reads the benchmark program's `begin E` / `result E STATUS MS FIRST_MS ERR [MSG]`
  /// lines into `out`; `begun` is the entry begun and not finished (-1 if none), `next`
  /// the entry after the last result.
  static void parseResults(const std::vector<std::string>& lines, std::vector<Measured>& out,
                           int& begun, int& next) {
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

  /// Times `leaders` again with `reps` repeats in the benchmark programs that already
  /// hold them (no host compiler run): one run per program, listing its entries. The
  /// default config (leaders[0]) is timed in the first program used. Empty when some
  /// leader was never built (then the caller builds a program for them).
  std::vector<Measured> retime(const std::vector<std::string>& texts, int reps) {
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
    log(fmt::format("  {} entries re-run in {} built programs: {:.1f} s", texts.size(),
                    byProgram.size(), std::chrono::duration<double>(Clock::now() - r0).count()));
    return out;
  }

  /// Builds the harness over `entries` and runs every entry; index i of the result is
  /// entry i. Empty when the harness does not build (reported).
  std::vector<Measured> measure(const std::vector<config::Config>& entries,
                                const std::vector<codegen::EmittedKernel>& emitted, int batchNo,
                                int reps) {
    fs::path dir = dir_ / fmt::format("batch{}", batchNo);
    fs::create_directories(dir);
    std::vector<codegen::HostKernel> hosts;
    for (size_t e = 0; e < entries.size(); ++e) {
      codegen::HostKernel hk{&k_.typed, &k_.parsed.host, &emitted[e], {}, {}};
      for (const auto& b : k_.typed.blockSizes)
        hk.registerBlockSizes.push_back(
            config::resolveBlockSize(k_.typed, entries[e], b.id).value);
      hosts.push_back(hk);
    }
    const std::string stem = fs::path(o_.in.file).stem().string();
    std::ofstream(dir / (stem + ".helion.cpp"))
        << codegen::rewriteHost(fs::path(o_.in.file).filename().string(), text_, hosts);
    std::ofstream(dir / "harness.cpp")
        << harnessSource(k_.typed, *args_, stem + ".helion.cpp");
    const std::vector<std::string> flags = {"-std=c++23", "-O1", "-w", "-I" + tc_.include,
                                            "-I" + tc_.cudaInclude};
    if (!pchTried_) { // HELIONC_NO_PCH=1: every program parses its headers itself
      pchTried_ = true;
      const char* off = std::getenv("HELIONC_NO_PCH");
      std::string why;
      if (!(off && *off && std::string_view(off) != "0"))
        pch_ = harnessPch(tc_.cxx, flags, tc_.include, tune::TuneCache::defaultDirectory(), why);
      if (!pch_.empty())
        log("precompiled header " + pch_ + ".gch");
      else if (!why.empty())
        log("no precompiled header (" + why + ")");
    }
    std::vector<std::string> build = {tc_.cxx};
    build.insert(build.end(), flags.begin(), flags.end());
    if (!pch_.empty())
      build.insert(build.end(), {"-include", pch_});
    build.insert(build.end(), {"-I" + dir.string(), (dir / "harness.cpp").string(),
                               tc_.runtimeLib, "-ldl",
                               "-Wl,--undefined=helion_rt_install_cuda_backend", "-o",
                               (dir / "harness").string()});
    std::vector<std::string> lines;
    std::string err;
    auto b0 = Clock::now();
    int rc = runProgram(build, 600, lines, err);
    if (rc != 0) {
      diags_.error(fmt::format("building the benchmark program failed ({}): {}",
                               (dir / "harness.cpp").string(), err.substr(0, 2000)));
      return {};
    }
    double buildS = std::chrono::duration<double>(Clock::now() - b0).count();
    for (size_t e = 0; e < emitted.size(); ++e)
      builtAt_.try_emplace(emitted[e].source, dir / "harness", static_cast<int>(e));
    if (o_.buildOnly) {
      log(fmt::format("built {} ({} entries, host compiler {:.1f} s); --build-only: not run",
                      (dir / "harness").string(), entries.size(), buildS));
      return {};
    }
    std::vector<Measured> out(entries.size());
    // Entry 0 is the reference every run computes first; a run that dies there is fatal.
    int next = 0;
    auto r0 = Clock::now();
    while (next < static_cast<int>(entries.size())) {
      lines.clear();
      err.clear();
      int last = static_cast<int>(entries.size()) - 1;
      // HELIONC_TUNE_TIMEOUT: seconds per run of the benchmark program (a hang's cost).
      const char* limit = std::getenv("HELIONC_TUNE_TIMEOUT");
      double timeout = limit && std::atof(limit) > 0 ? std::atof(limit) : 120 + 10.0 * (last - next + 1);
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
        log(fmt::format("  candidate {} failed ({}): {}", config::formatConfig(entries[e], spec_),
                        out[e].status, out[e].message.substr(0, 200)));
    log(fmt::format("  {} entries: host compiler {:.1f} s, run (NVRTC + checks + timing) {:.1f} s",
                    entries.size(), buildS,
                    std::chrono::duration<double>(Clock::now() - r0).count()));
    return out;
  }

  const TuneOptions& o_;
  const AnalyzedKernel& k_;
  const std::string& text_;
  DiagnosticEngine& diags_;
  Toolchain tc_;
  Clock::time_point t0_;
  const tune::ArgSpec* args_ = nullptr;
  fs::path dir_;
  /// The benchmark program and entry that hold each CUDA text built for this shape.
  std::map<std::string, std::pair<fs::path, int>> builtAt_;
  config::ConfigSpec spec_; ///< the kernel's spec at the shape being tuned
  bool pchTried_ = false;
  std::string pch_; ///< the precompiled header to -include, or "" for none
};

std::string driverVersion() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  std::getline(f, line);
  return line.substr(0, 120);
}

int runTune(const TuneOptions& o) {
  DiagnosticEngine diags(std::cerr);
  diags.setColor(stderrWantsColor());
  auto effort = tune::parseEffort(o.effort);
  if (!effort) {
    diags.error("--effort: expected quick or full, got '" + o.effort + "'");
    return 2;
  }
  const auto& known = tune::searchNames();
  if (std::find(known.begin(), known.end(), o.search) == known.end()) {
    std::string names;
    for (const std::string& n : tune::searchNames())
      names += (names.empty() ? "" : ", ") + n;
    diags.error("--search: expected one of " + names + ", got '" + o.search + "'");
    return 2;
  }
  std::vector<tune::ArgSpec> shapes;
  for (const std::string& a : o.args) {
    auto parsed = tune::parseArgSpec({a});
    for (const std::string& e : parsed.errors)
      diags.error(e);
    if (!parsed.value)
      return 2;
    shapes.push_back(*parsed.value);
  }
  std::string text;
  auto kernels = analyze(o.in, {}, &text, diags);
  if (!kernels)
    return 1;
  if (helionRuntimeLibrary().empty()) {
    diags.error("cannot find libhelion_runtime.a: expected it in '" +
                (fs::path(executableDir()).parent_path() / "lib").string() +
                "' (set HELIONC_RUNTIME_LIB to the file)");
    return 1;
  }
  if (kernels->size() != 1) {
    std::string names;
    for (const AnalyzedKernel& k : *kernels)
      names += (names.empty() ? "" : ", ") + k.typed.name;
    diags.error(ir::SourceLoc{o.in.file, 0, 0},
                fmt::format("the file has {} kernels ({}): name one with --kernel",
                            kernels->size(), names));
    return 1;
  }
  const AnalyzedKernel& k = kernels->front();
  if (k.spec.hasDot) {
    diags.error(ir::SourceLoc{o.in.file, 0, 0},
                "tuning tensor-core kernels (hl::dot) is not supported yet: their configs are "
                "checked by rules the search does not know");
    return 1;
  }
  std::vector<tune::ArgSpec> bound;
  for (const tune::ArgSpec& s : shapes) {
    auto b = tune::bindArgs(s, k.typed);
    for (const std::string& e : b.errors)
      diags.error(e);
    if (!b.value)
      return 2;
    bound.push_back(*b.value);
  }
  if (o.buildOnly) {
    if (o.workDir.empty()) {
      diags.error("--build-only needs --work-dir (where the program is kept)");
      return 2;
    }
    Tuner tuner(o, k, text, diags);
    double d = 0, b = 0;
    size_t c = 0, t = 0;
    tuner.tune(bound.front(), fs::path(o.workDir) / "shape0", d, b, c, t);
    return diags.hasErrors() ? 1 : 0;
  }
  if (!rt::driverAvailable()) {
    diags.error("helionc tune needs a GPU: the CUDA driver (libcuda.so.1) is not available");
    return 1;
  }
  const rt::DeviceInfo& dev = rt::deviceInfo();
  fs::path work = o.workDir.empty()
                      ? fs::temp_directory_path() / fmt::format("helionc-tune-{}", getpid())
                      : fs::path(o.workDir);
  tune::TuneCache cache(tune::TuneCache::defaultDirectory());
  Tuner tuner(o, k, text, diags);
  std::vector<tune::TunedEntry> results;
  for (size_t i = 0; i < bound.size(); ++i) {
    const tune::ArgSpec& args = bound[i];
    tune::TuneKey key{tune::sourceHash(text), k.typed.name, args.label(), dev.name,
                      fmt::format("{}.{}", dev.major, dev.minor), driverVersion(),
                      rt::nvrtcVersion(), tune::helioncVersion()};
    tuner.log(fmt::format("tuning {} at {} on {} (effort {}, search {})", k.typed.name,
                          args.label(), dev.name, o.effort, o.search));
    tuner.log("cache key " + key.digest() + ": " + key.text());
    std::optional<config::Config> best;
    double defaultMs = NAN, bestMs = NAN;
    size_t compiled = 0, timed = 0;
    if (auto hit = tune::TuneCache::enabled() && !o.force ? cache.lookup(key) : std::nullopt) {
      auto parsed = config::parseConfig((*hit)["config"], k.spec, "tune cache");
      if (parsed.ok()) {
        best = *parsed.value;
        defaultMs = hit->value("default_ms", NAN);
        bestMs = hit->value("best_ms", NAN);
        tuner.log("cached result used (--force tunes again)");
      }
    }
    if (!best) {
      best = tuner.tune(args, work / fmt::format("shape{}", i), defaultMs, bestMs, compiled, timed);
      if (!best)
        return 1;
      nlohmann::json result = {{"config", nlohmann::json::parse(config::formatConfig(*best, k.spec))},
                               {"default_ms", defaultMs},
                               {"best_ms", bestMs}};
      if (tune::TuneCache::enabled())
        cache.store(key, result);
    }
    tuner.log(fmt::format("best config for {}: {}", args.label(),
                          config::formatConfig(*best, k.spec)));
    tuner.log(fmt::format("  {:.4f} ms, default config {:.4f} ms: {:.2f}x; {} candidates "
                          "compiled, {} timed",
                          bestMs, defaultMs, defaultMs / bestMs, compiled, timed));
    std::cout << fmt::format("{} {} best_ms={:.6f} default_ms={:.6f} compiled={} timed={}\n",
                             k.typed.name, args.label(), bestMs, defaultMs, compiled, timed);
    results.push_back({k.typed.name, args.shapeKey(),
                       nlohmann::ordered_json::parse(config::formatConfig(*best, k.spec))});
  }
  std::vector<std::string> errors = tune::updateTunedFile(o.out, results, k.typed.name);
  for (const std::string& e : errors)
    diags.error(e);
  if (!errors.empty())
    return 1;
  tuner.log("wrote " + o.out + "; use it with: helionc compile " + o.in.file + " --config " +
            o.out);
  std::error_code ec;
  if (o.workDir.empty())
    fs::remove_all(work, ec);
  return 0;
}

} // namespace

void registerTune(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "find the fastest correct config of a kernel on this machine's GPU, for the "
              "shapes given by --args, and merge it into a config file");
  cmd->footer(
      "Example:\n  helionc tune examples/softmax.cpp --kernel softmax --args 'x=bf16[8192,8192]' "
      "-o best.json\n  helionc compile examples/softmax.cpp --config best.json\n\n"
      "Each candidate is checked against the default config's output (fresh random inputs, "
      "NaN-poisoned outputs) and timed with CUDA events; a candidate that crashes, hangs or "
      "differs is reported and never chosen. Results are cached by source, kernel, shapes, "
      "GPU, driver, NVRTC and helionc version ($HELIONC_CACHE_DIR/tune); --force tunes again. "
      "Needs a GPU, a host C++ compiler (HELIONC_CXX, default g++) and the runtime library "
      "(../lib/libhelion_runtime.a beside helionc's bin/, this build's when run from the build "
      "tree, or HELIONC_RUNTIME_LIB).");
  addInputOptions(*cmd, o->in);
  cmd->add_option("--args", o->args,
                  "the kernel's arguments for one shape, e.g. 'x=bf16[8192,8192] eps=1e-5'; "
                  "repeat for more shapes (one entry each in the output)")
      ->required();
  cmd->add_option("--effort", o->effort, "quick (48 candidates, 22 s) or full (400, 300 s)")
      ->check(CLI::IsMember({"quick", "full"}));
  cmd->add_option("--budget", o->budget, "wall-clock seconds for the search (default: the effort's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--search", o->search, "search strategy: pattern (default), de, random");
  cmd->add_option("-o,--output", o->out, "config file to merge the result into (default best.json)");
  cmd->add_flag("--force", o->force, "ignore cached results");
  cmd->add_option("--work-dir", o->workDir, "keep the generated benchmark programs here");
  cmd->add_flag("--build-only", o->buildOnly,
               "generate and build the first benchmark program in --work-dir, run nothing "
               "(needs no GPU)");
  cmd->add_option("--batch", o->batch, "candidates per benchmark program (default 16)")
      ->check(CLI::Range(1, 256));
  cmd->callback([o] {
    int rc = runTune(*o);
    if (rc != 0)
      std::exit(rc);
  });
}

} // namespace helion::tool
