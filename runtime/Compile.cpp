//===- Compile.cpp - NVRTC compilation to cubin ---------------------------===//

#include "helion/runtime/Compile.h"

#include "CompileCache.h"
#include "NvrtcApi.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

namespace helion::rt {
namespace {

using detail::nvrtcApi;

/// RAII for an nvrtcProgram.
struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle)
      nvrtcApi().nvrtcDestroyProgram(&handle);
  }
};

void checkNvrtc(nvrtcResult result, const std::string &what, const std::string &programName) {
  if (result != NVRTC_SUCCESS)
    throw std::runtime_error("helion: " + what + " '" + programName +
                             "': " + nvrtcApi().nvrtcGetErrorString(result));
}

std::string programLog(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcApi().nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
    return {};
  std::string log(size, '\0');
  nvrtcApi().nvrtcGetProgramLog(program, log.data());
  log.resize(log.find('\0')); // up to the first NUL (NVRTC may count more than one)
  return log;
}

/// The device library's text, hashed once into every cache key.
const std::string &deviceLibraryDigest() {
  static const std::string digest = [] {
    detail::KeyHasher hasher;
    for (const EmbeddedHeader &header : deviceLibrary())
      hasher.add(header.name).add(header.text);
    return hasher.hex();
  }();
  return digest;
}

/// The NVRTC library this process loaded: its version, and its file's size and
/// modification time, so that an update within a version (13.0.48 -> 13.0.88),
/// which nvrtcVersion does not tell apart, misses the cache.
const std::string &nvrtcFingerprint() {
  static const std::string fingerprint = [] {
    std::string out = nvrtcVersion();
    if (!nvrtcApi().path.empty()) {
      namespace fs = std::filesystem;
      std::error_code ec;
      fs::path lib = fs::canonical(nvrtcApi().path, ec);
      if (!ec)
        out += " " + lib.string() + " " + std::to_string(fs::file_size(lib, ec)) + " " +
               std::to_string(fs::last_write_time(lib, ec).time_since_epoch().count());
    }
    return out;
  }();
  return fingerprint;
}

std::string cacheKey(const CompileRequest &request, const std::vector<std::string> &options) {
  detail::KeyHasher hasher;
  hasher.add("helionc-compile-v3").add(nvrtcFingerprint()).add(deviceLibraryDigest());
  hasher.add(request.arch).add(request.source);
  hasher.add(std::to_string(options.size()));
  for (const std::string &option : options)
    hasher.add(option);
  hasher.add(std::to_string(request.nameExpressions.size()));
  for (const std::string &name : request.nameExpressions)
    hasher.add(name);
  return hasher.hex();
}

/// The directory NVRTC is told the program and the device library live in. With
/// -lineinfo NVRTC records the directory of every file named by a relative path,
/// and takes it from the working directory: the cubin's bytes would depend on
/// where the compiler ran (and a cache entry written from one directory would be
/// served to another). Absolute names under a fixed directory keep them the same.
constexpr std::string_view kSourceDir = "/helionc/";

/// `text` with each `#include "helion/...` naming the device library under kSourceDir
/// (NVRTC matches an include against the header names literally).
std::string absoluteIncludes(std::string_view text) {
  constexpr std::string_view from = "#include \"helion/";
  std::string out;
  out.reserve(text.size() + 64);
  for (size_t at = 0;;) {
    size_t hit = text.find(from, at);
    if (hit == std::string_view::npos) {
      out.append(text.substr(at));
      return out;
    }
    out.append(text.substr(at, hit - at)).append("#include \"").append(kSourceDir);
    out.append("helion/");
    at = hit + from.size();
  }
}

/// The device library as NVRTC sees it: absoluteIncludes() of each header, named
/// kSourceDir + its name. Built once.
struct AbsoluteLibrary {
  std::vector<std::string> names, texts;
  std::vector<const char *> namePtrs, textPtrs;
};
const AbsoluteLibrary &absoluteLibrary() {
  static const AbsoluteLibrary library = [] {
    AbsoluteLibrary out;
    for (const EmbeddedHeader &header : deviceLibrary()) {
      out.names.push_back(std::string(kSourceDir) + header.name);
      out.texts.push_back(absoluteIncludes(header.text));
    }
    for (size_t i = 0; i < out.names.size(); ++i) {
      out.namePtrs.push_back(out.names[i].c_str());
      out.textPtrs.push_back(out.texts[i].c_str());
    }
    return out;
  }();
  return library;
}

CompiledProgram runNvrtc(const CompileRequest &request, const std::vector<std::string> &options) {
  const std::string &name = request.programName;
  const AbsoluteLibrary &library = absoluteLibrary();
  const std::string source = absoluteIncludes(request.source);
  const std::string path =
      std::string(kSourceDir) + std::filesystem::path(name).filename().string();
  const detail::NvrtcApi &api = nvrtcApi();
  Program program;
  checkNvrtc(api.nvrtcCreateProgram(&program.handle, source.c_str(), path.c_str(),
                                static_cast<int>(library.namePtrs.size()), library.textPtrs.data(),
                                library.namePtrs.data()),
             "creating NVRTC program", name);
  for (const std::string &expression : request.nameExpressions)
    checkNvrtc(api.nvrtcAddNameExpression(program.handle, expression.c_str()),
               "adding name expression '" + expression + "' to", name);

  std::vector<const char *> argv;
  for (const std::string &option : options)
    argv.push_back(option.c_str());
  CompiledProgram out;
  nvrtcResult result =
      api.nvrtcCompileProgram(program.handle, static_cast<int>(argv.size()), argv.data());
  out.log = programLog(program.handle);
  // The log names files as the user knows them: "add.cu(3): error", not "/helionc/add.cu(3)".
  for (size_t at = out.log.find(kSourceDir); at != std::string::npos;
       at = out.log.find(kSourceDir, at))
    out.log.erase(at, kSourceDir.size());
  if (result != NVRTC_SUCCESS)
    throw CompileError("helion: compiling '" + name + "' for " + request.arch + " failed (" +
                           api.nvrtcGetErrorString(result) + "):\n" + out.log,
                       name, out.log);

  std::size_t cubinSize = 0;
  checkNvrtc(api.nvrtcGetCUBINSize(program.handle, &cubinSize), "getting the cubin of", name);
  out.cubin.resize(cubinSize);
  checkNvrtc(api.nvrtcGetCUBIN(program.handle, out.cubin.data()), "getting the cubin of", name);
  if (cubinSize == 0)
    throw CompileError("helion: compiling '" + name + "': NVRTC produced no cubin (is " +
                           request.arch + " a real architecture, not compute_XX?)",
                       name, out.log);

  if (request.wantPtx) {
    std::size_t ptxSize = 0;
    checkNvrtc(api.nvrtcGetPTXSize(program.handle, &ptxSize), "getting the PTX of", name);
    out.ptx.resize(ptxSize);
    checkNvrtc(api.nvrtcGetPTX(program.handle, out.ptx.data()), "getting the PTX of", name);
    if (!out.ptx.empty() && out.ptx.back() == '\0')
      out.ptx.pop_back();
  }

  for (const std::string &expression : request.nameExpressions) {
    const char *lowered = nullptr;
    checkNvrtc(api.nvrtcGetLoweredName(program.handle, expression.c_str(), &lowered),
               "lowering name expression '" + expression + "' of", name);
    out.loweredNames[expression] = lowered;
  }
  return out;
}

} // namespace

std::vector<std::string> baseOptions(const std::string &arch) {
  // -minimal drops texture/surface types, device-side launches and the runtime
  // API declarations from NVRTC's built-in headers: ~15% off a small kernel. Warning 177
  // (a variable declared but never referenced): the generated kernels declare every
  // axis's layout constants (S_, ST_, E_, th_, X_...) whether or not a statement reads
  // them; NVRTC's log (helionc --nvrtc-log) would otherwise list them.
  return {"--gpu-architecture=" + arch, "-std=c++17", "-default-device", "-lineinfo", "-minimal",
          "--diag-suppress=177"};
}

std::vector<std::string> environmentOptions() {
  std::vector<std::string> out;
  const char *text = std::getenv("HELIONC_NVRTC_OPTIONS");
  std::string_view rest = text ? text : "";
  while (!rest.empty()) {
    std::size_t begin = rest.find_first_not_of(" \t");
    if (begin == std::string_view::npos)
      break;
    rest.remove_prefix(begin);
    std::size_t end = std::min(rest.find_first_of(" \t"), rest.size());
    out.emplace_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  return out;
}

CompiledProgram compile(const CompileRequest &request) {
  if (request.arch.empty())
    throw std::invalid_argument("helion: compiling '" + request.programName +
                                "': no target architecture given (expected e.g. sm_90a)");
  std::vector<std::string> options = baseOptions(request.arch);
  options.insert(options.end(), request.options.begin(), request.options.end());
  // Before the cache key, which they change: an option may change the code.
  std::vector<std::string> extra = environmentOptions();
  options.insert(options.end(), extra.begin(), extra.end());

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const bool useCache = cacheEnabled() && !request.wantPtx;
  std::string key;
  if (useCache) {
    key = cacheKey(request, options);
    if (std::optional<CompiledProgram> hit = detail::readCacheEntry(key)) {
      hit->seconds = elapsed();
      return std::move(*hit);
    }
  }
  CompiledProgram program = runNvrtc(request, options);
  program.seconds = elapsed();
  if (useCache)
    detail::writeCacheEntry(key, program);
  return program;
}

} // namespace helion::rt
