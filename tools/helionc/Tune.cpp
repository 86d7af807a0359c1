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
#include "TuneRunner.h"

#include "helion/Config/BlockSizes.h"
#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Support/InstallPaths.h"
#include "helion/Tune/Dedup.h"
#include "helion/Tune/Flops.h"
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
  int emitChoice = 1;     ///< > 1: write the best K configs as a "choose" entry
};

/// The tensor sizes of `args`, by parameter name.
std::map<std::string, std::vector<int64_t>> tensorSizes(const tune::ArgSpec& args) {
  std::map<std::string, std::vector<int64_t>> tensors;
  for (const tune::Arg& a : args.args)
    if (a.isTensor())
      tensors[a.name] = a.tensor().sizes;
  return tensors;
}

/// The kernel's extents at the sizes and integer scalars of `args`.
config::SizeHints hintsFor(const AnalyzedKernel& k, const tune::ArgSpec& args) {
  std::map<std::string, int64_t> scalars;
  for (const tune::Arg& a : args.args)
    if (!a.isTensor())
      if (auto i = std::get_if<int64_t>(&a.scalar()))
        scalars[a.name] = *i;
  return config::sizeHintsFor(k.typed, tensorSizes(args), scalars);
}

/// Floating-point operations of one call at `args` (hl::dot), 0 when not counted.
double flopsAt(const AnalyzedKernel& k, const tune::ArgSpec& args) {
  return tune::dotFlops(k.typed, hintsFor(k, args), tensorSizes(args)).value_or(0);
}

/// " (123.4 TFLOP/s)" for `ms` of a call doing `flops`, or "" when the work is not counted.
std::string rate(double flops, double ms) {
  if (!(flops > 0) || !(ms > 0) || !std::isfinite(ms))
    return "";
  return fmt::format(" ({:.1f} TFLOP/s)", flops / (ms * 1e-3) / 1e12);
}

class Tuner {
public:
  Tuner(const TuneOptions& o, const AnalyzedKernel& k, const std::string& fileText,
        DiagnosticEngine& diags)
      : o_(o), k_(k), diags_(diags), t0_(Clock::now()),
        runner_(k, o.in.file, fileText, diags, [this](const std::string& l) { log(l); },
                o.buildOnly) {}

  /// Tunes one shape; returns the best config, or nullopt after reporting why.
  std::optional<config::Config> tune(const tune::ArgSpec& args, const fs::path& dir,
                                     double& defaultMs, double& bestMs, size_t& compiled,
                                     size_t& timed) {
    fs::create_directories(dir);
    // The spec for these sizes: block sizes capped by their extents, and the default
    // config (the search's start, and what the tuned one is compared with) for them.
    const config::SizeHints hints = hintsFor(k_, args);
    spec_ = config::ConfigSpec::fromKernel(k_.typed, hints);
    const config::ConfigSpec& spec = spec_;
    flops_ = flopsAt(k_, args);
    if (flops_ > 0)
      log(fmt::format("work of one call: {:.4g} GFLOP (hl::dot); times are also given in TFLOP/s",
                      flops_ / 1e9));
    runner_.startShape(args, dir, spec_, {spec_.hasDot, flops_});
    auto effort = tune::parseEffort(o_.effort).value_or(tune::Effort::Quick);
    tune::SearchOptions so = tune::optionsFor(effort);
    // Each batch costs one host-compiler run: fewer, larger batches for quick.
    so.maxCandidates = effort == tune::Effort::Quick ? 48 : 400;
    double budget = o_.budget > 0 ? o_.budget : (effort == tune::Effort::Quick ? 22 : 300);
    // The budget is per shape: it starts now, not when the command did.
    so.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(budget));
    runner_.setDeadline(*so.deadline);
    auto search = tune::makeSearch(o_.search, spec, so);
    const config::Config def = spec.defaultConfig();
    std::map<std::string, double> costByText; // identical CUDA: measured once
    std::vector<tune::Evaluation> measured;   // every entry timed, proposed or not
    int batchNo = 0;
    double lastBatchS = 0; // a batch that would end past the deadline is not begun
    while (!search->done()) {
      const size_t width = batchWidth(*so.deadline, lastBatchS, batchNo);
      if (width == 0) {
        log(fmt::format("stopping: another batch (~{:.1f} s) would overrun the budget", lastBatchS));
        break;
      }
      std::vector<config::Config> batch = search->next(width);
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
          if (entries.size() >= width + 1)
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
        m = runner_.measure(entries, emitted, batchNo, 3);
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
                      "the emitter, {} failed); best {:.4f} ms{}, default {:.4f} ms ({:.2f}x)",
                      batchNo, batch.size(), entries.size() - 1, dups, rejected, failed, best,
                      rate(flops_, best), defaultMs, defaultMs / best));
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
      if (leaders.size() >= static_cast<size_t>(std::max(3, o_.emitChoice)) + 1 ||
          !std::isfinite(e.cost))
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
    std::vector<Measured> m = runner_.retime(leaderTexts, 20);
    if (m.empty())
      m = runner_.measure(leaders, emitted, 0, 20);
    size_t winner = 0;
    for (size_t i = 1; i < m.size(); ++i)
      if (m[i].status == "ok" && m[i].ms < m[winner].ms)
        winner = i;
    defaultMs = m.empty() ? defaultMs : m[0].ms;
    bestMs = m.empty() ? search->bestCost() : m[winner].ms;
    log(fmt::format("re-timed {} leaders (20 repeats): best {:.4f} ms{}, default {:.4f} ms{}",
                    leaders.size() - 1, bestMs, rate(flops_, bestMs), defaultMs,
                    rate(flops_, defaultMs)));
    // Fastest first, the default among them: what --emit-choice writes.
    std::vector<size_t> order;
    for (size_t i = 0; i < m.size(); ++i)
      if (m[i].status == "ok")
        order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return m[a].ms < m[b].ms; });
    ranked_.clear();
    for (size_t i : order)
      ranked_.push_back(leaders[i]);
    if (ranked_.empty())
      ranked_.push_back(leaders[winner]);
    return leaders[winner];
  }

  /// The correct leaders of the last tune(), fastest first.
  const std::vector<config::Config>& ranked() const { return ranked_; }

  void log(const std::string& line) const {
    double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    std::cerr << fmt::format("[{:.1f}s] {}\n", s, line);
  }

private:
  /// Candidates for the next batch: --batch while a whole batch fits before the
  /// deadline (judged by the last one's duration), then as many as fit, taking 40 % of
  /// a batch to be fixed cost (program start, the precompiled header, input creation)
  /// and the rest to scale with its entries; 0 (stop) below 4. A budget's end is spent
  /// on a small batch rather than left unused: quick tuning of rms_norm stopped at 14 of
  /// its 22 s when a whole batch took 8 s.
  size_t batchWidth(Clock::time_point deadline, double lastBatchS, int batchNo) const {
    const size_t full = static_cast<size_t>(o_.batch);
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (batchNo == 0 || left >= lastBatchS)
      return full;
    const double perEntry = 0.6 * lastBatchS / static_cast<double>(full);
    const double fits = (left - 0.4 * lastBatchS) / perEntry;
    return fits >= 4 ? std::min(full, static_cast<size_t>(fits)) : 0;
  }

  std::optional<codegen::EmittedKernel> emit(const config::Config& c) {
    std::ostringstream sink; // the emitter's complaints about a candidate: a rejection
    DiagnosticEngine quiet(sink);
    codegen::EmitOptions eo;
    eo.sourceFile = o_.in.file;
    eo.configJson = config::formatConfig(c, spec_);
    if (!config::validate(c, spec_).empty())
      return std::nullopt;
    return driver::compileCuda(k_.typed, c, eo, quiet);
  }


  const TuneOptions& o_;
  const AnalyzedKernel& k_;
  DiagnosticEngine& diags_;
  Clock::time_point t0_;
  BenchRunner runner_;
  config::ConfigSpec spec_; ///< the kernel's spec at the shape being tuned
  double flops_ = 0;        ///< work of one call at that shape (hl::dot), 0 if not counted
  std::vector<config::Config> ranked_;
};

/// What --emit-choice K writes: `best`, then the next of `ranked` (fastest first), up to
/// `k` configs, each distinct and giving hl::register_block_size the values `best` gives
/// (the host code reads them before the launcher chooses).
std::vector<config::Config> choiceOf(const AnalyzedKernel& k, const config::Config& best,
                                     const std::vector<config::Config>& ranked, int count) {
  std::vector<config::Config> out = {best};
  std::vector<std::string> texts = {config::formatConfig(best, k.spec)};
  const std::vector<int64_t> values = config::blockSizeValues(k.typed, best);
  for (const config::Config& c : ranked) {
    if (out.size() >= static_cast<size_t>(std::max(count, 1)))
      break;
    std::string text = config::formatConfig(c, k.spec);
    const std::vector<int64_t> theirs = config::blockSizeValues(k.typed, c);
    bool agrees = std::all_of(
        k.parsed.host.registerBlockSizeCalls.begin(), k.parsed.host.registerBlockSizeCalls.end(),
        [&](const auto& call) {
          size_t b = static_cast<size_t>(call.blockSize);
          return b >= values.size() || values[b] == theirs[b];
        });
    if (agrees && std::find(texts.begin(), texts.end(), text) == texts.end()) {
      out.push_back(c);
      texts.push_back(std::move(text));
    }
  }
  return out;
}

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
    std::vector<config::Config> ranked; // fastest first (--emit-choice)
    double defaultMs = NAN, bestMs = NAN;
    size_t compiled = 0, timed = 0;
    if (auto hit = tune::TuneCache::enabled() && !o.force ? cache.lookup(key) : std::nullopt) {
      auto parsed = config::parseConfig((*hit)["config"], k.spec, "tune cache");
      if (parsed.ok()) {
        best = *parsed.value;
        for (const auto& r : hit->value("ranked", nlohmann::json::array()))
          if (auto c = config::parseConfig(r, k.spec, "tune cache"); c.ok())
            ranked.push_back(*c.value);
        defaultMs = hit->value("default_ms", NAN);
        bestMs = hit->value("best_ms", NAN);
        tuner.log("cached result used (--force tunes again)");
      }
    }
    if (!best) {
      best = tuner.tune(args, work / fmt::format("shape{}", i), defaultMs, bestMs, compiled, timed);
      if (!best)
        return 1;
      ranked = tuner.ranked();
      nlohmann::json rankedJson = nlohmann::json::array();
      for (const config::Config& c : ranked)
        rankedJson.push_back(nlohmann::json::parse(config::formatConfig(c, k.spec)));
      nlohmann::json result = {{"config", nlohmann::json::parse(config::formatConfig(*best, k.spec))},
                               {"ranked", rankedJson},
                               {"default_ms", defaultMs},
                               {"best_ms", bestMs}};
      if (tune::TuneCache::enabled())
        cache.store(key, result);
    }
    tuner.log(fmt::format("best config for {}: {}", args.label(),
                          config::formatConfig(*best, k.spec)));
    const double flops = flopsAt(k, args);
    tuner.log(fmt::format("  {:.4f} ms{}, default config {:.4f} ms{}: {:.2f}x; {} candidates "
                          "compiled, {} timed",
                          bestMs, rate(flops, bestMs), defaultMs, rate(flops, defaultMs),
                          defaultMs / bestMs, compiled, timed));
    std::string tflops; // kernels with hl::dot: the work per call, so scripts need no formula
    if (flops > 0)
      tflops = fmt::format(" gflop={:.6g} best_tflops={:.2f} default_tflops={:.2f}", flops / 1e9,
                           flops / (bestMs * 1e-3) / 1e12, flops / (defaultMs * 1e-3) / 1e12);
    std::cout << fmt::format("{} {} best_ms={:.6f} default_ms={:.6f} compiled={} timed={}{}\n",
                             k.typed.name, args.label(), bestMs, defaultMs, compiled, timed,
                             tflops);
    std::vector<config::Config> choice = choiceOf(k, *best, ranked, o.emitChoice);
    if (choice.size() > 1) { // the launcher chooses among the best K
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const config::Config& c : choice)
        list.push_back(nlohmann::ordered_json::parse(config::formatConfig(c, k.spec)));
      tuner.log(fmt::format("  {} candidates written as a \"choose\" entry", list.size()));
      results.push_back({k.typed.name, args.shapeKey(), std::move(list), true, args.dtypeKey()});
    } else {
      results.push_back({k.typed.name, args.shapeKey(),
                         nlohmann::ordered_json::parse(config::formatConfig(*best, k.spec)), false,
                         args.dtypeKey()});
    }
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
                  "repeat for more shapes (one entry each in the output). Tensors get random "
                  "values; 'offsets=i64[1025]:offsets(65536)' is 1025 sorted offsets from 0 "
                  "to 65536 (a jagged or grouped kernel's rows)")
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
  cmd->add_option("--emit-choice", o->emitChoice,
                  "write the K fastest correct configs of each shape as a \"choose\" entry: the "
                  "launcher times them on the first call for that shape (configs/README.md)")
      ->check(CLI::Range(1, 8));
  cmd->callback([o] {
    int rc = runTune(*o);
    if (rc != 0)
      std::exit(rc);
  });
}

} // namespace helion::tool
