//===- DeviceCompile.cpp - NVRTC jobs of helionc compile --------------------===//
#include "DeviceCompile.h"

#include "Driver.h"
#include "helion/runtime/Compile.h"

#include <fmt/format.h>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace helion::tool {
namespace {

namespace fs = std::filesystem;

/// A child's result file: the lowered name, then "SECONDS CACHE_HIT CUBIN_BYTES", then
/// the cubin and the PTX.
void writeOutput(const fs::path& path, const rt::CompiledProgram& p, const std::string& lowered) {
  std::ofstream f(path, std::ios::binary);
  f << lowered << "\n" << p.seconds << " " << (p.cacheHit ? 1 : 0) << " " << p.cubin.size() << "\n"
    << p.cubin << p.ptx;
}

std::optional<DeviceOutput> readOutput(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  DeviceOutput out;
  size_t cubinBytes = 0;
  int hit = 0;
  if (!std::getline(f, out.lowered) || !(f >> out.seconds >> hit >> cubinBytes) || f.get() != '\n')
    return std::nullopt;
  out.cacheHit = hit != 0;
  std::ostringstream rest;
  rest << f.rdbuf();
  std::string bytes = rest.str();
  if (bytes.size() < cubinBytes)
    return std::nullopt;
  out.cubin = bytes.substr(0, cubinBytes);
  out.ptx = bytes.substr(cubinBytes);
  return out;
}

/// A fresh private directory for the children's results.
std::optional<fs::path> scratchDirectory(DiagnosticEngine& diags) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  std::string pattern = ((ec ? fs::path("/tmp") : base) / "helionc-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    diags.error("cannot create a temporary directory '" + pattern + "': " + std::strerror(errno));
    return std::nullopt;
  }
  return fs::path(pattern);
}

} // namespace

std::optional<double> nvrtcTimeout(DiagnosticEngine& diags) {
  constexpr double kDefaultNvrtcTimeout = 120;
  const char* text = std::getenv("HELIONC_NVRTC_TIMEOUT");
  if (!text || !*text)
    return kDefaultNvrtcTimeout;
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds >= 0) || seconds > 1e9) {
    diags.error(fmt::format("HELIONC_NVRTC_TIMEOUT: expected a number of seconds >= 0, got '{}'",
                            std::string(text).substr(0, 60)));
    return std::nullopt;
  }
  return seconds;
}

std::optional<std::vector<DeviceOutput>> compileDeviceJobs(const std::vector<DeviceJob>& jobs,
                                                           int parallel, const std::string& file,
                                                           DiagnosticEngine& diags, bool showLog) {
  std::optional<double> limit = nvrtcTimeout(diags);
  if (!limit)
    return std::nullopt;
  std::optional<fs::path> dir = scratchDirectory(diags);
  if (!dir)
    return std::nullopt;
  const ir::SourceLoc at{file, 0, 0};
  auto resultPath = [&](size_t i) { return *dir / std::to_string(i); };
  std::vector<ChildResult> results = runInChildren(
      jobs.size(),
      [&](size_t i) {
        const DeviceJob& j = jobs[i];
        rt::CompileRequest req;
        req.source = j.source;
        req.programName = j.programName;
        req.nameExpressions = {j.name};
        req.arch = j.arch;
        req.wantPtx = j.wantPtx;
        try {
          rt::CompiledProgram p = rt::compile(req);
          // --nvrtc-log: what NVRTC says of a compile that succeeded (ptxas's resource
          // usage and notes under HELIONC_NVRTC_OPTIONS=--ptxas-options=-v).
          const size_t end = p.log.find_last_not_of(" \t\r\n");
          if (showLog && end != std::string::npos)
            diags.note(at, "NVRTC's log for kernel '" + j.kernel + "' (" + j.name + ", " +
                               j.arch + "):\n" + p.log.substr(0, end + 1));
          writeOutput(resultPath(i), p, p.loweredNames.at(j.name));
          return 0;
        } catch (const std::exception& e) {
          diags.error(at, "NVRTC failed for kernel '" + j.kernel + "' (" + j.name + ", " + j.arch +
                              "): " + e.what());
          return 1;
        }
      },
      *limit, parallel);
  std::vector<DeviceOutput> outputs(jobs.size());
  bool ok = true;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const ChildResult& r = results[i];
    const std::string& name = jobs[i].kernel;
    if (r.kind == ChildResult::Kind::TimedOut)
      diags.error(at, fmt::format("NVRTC did not finish in {} s for kernel '{}' (the limit is "
                                  "HELIONC_NVRTC_TIMEOUT seconds; lower the config's block "
                                  "sizes or raise num_warps)",
                                  *limit, name));
    else if (r.kind == ChildResult::Kind::Signaled && r.code != SIGPIPE) // not `| head`
      diags.error(at, fmt::format("NVRTC crashed (signal {}: {}) for kernel '{}'", r.code,
                                  strsignal(r.code), name));
    if (r.kind != ChildResult::Kind::Exited || r.code != 0) {
      ok = false;
      continue;
    }
    std::optional<DeviceOutput> out = readOutput(resultPath(i));
    if (!out) {
      diags.error(at, "internal compiler error: lost the NVRTC result of kernel '" + name + "'");
      ok = false;
      continue;
    }
    outputs[i] = std::move(*out);
  }
  std::error_code ec;
  fs::remove_all(*dir, ec);
  if (!ok)
    return std::nullopt;
  return outputs;
}

} // namespace helion::tool
