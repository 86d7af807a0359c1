//===- helion/runtime/Compile.h - NVRTC to cubin, with a disk cache -*- C++ -*-===//
//
// Compiles CUDA C++ (emitted kernels) to a cubin for one architecture with NVRTC,
// which is loaded with dlopen on first use (nothing links libnvrtc). The
// device library (runtime/device/helion/*.cuh) is embedded in the runtime and
// handed to NVRTC as in-memory headers, so `#include "helion/device.cuh"` works
// without any path on disk.
//
// Results are cached on disk, in $HELIONC_CACHE_DIR, else $XDG_CACHE_HOME/helionc,
// else ~/.cache/helionc; HELIONC_NO_CACHE=1 disables the cache. An entry's key
// hashes the source, options (HELIONC_NVRTC_OPTIONS included), arch, name
// expressions, the device library and the NVRTC library (version, file size and
// time: a patch release misses); entries are written atomically and carry a
// checksum, so a truncated or corrupted one is recompiled.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Error.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace helion::rt {

struct CompileRequest {
  std::string source;
  std::string programName; ///< for diagnostics and the NVRTC log ("softmax.cu")
  /// Kernels to resolve, e.g. "softmax_kernel<float, 256>" or an extern "C" name.
  std::vector<std::string> nameExpressions;
  std::string arch;                 ///< "sm_90a", "sm_80", ...
  std::vector<std::string> options; ///< extra NVRTC options, e.g. "--use_fast_math", "-DX=1"
  /// Also return NVRTC's PTX (CompiledProgram::ptx). Such a request bypasses the
  /// disk cache, whose entries hold the cubin only.
  bool wantPtx = false;
};

struct CompiledProgram {
  std::string cubin;
  std::string ptx; ///< with CompileRequest::wantPtx, else empty
  /// name expression -> mangled (lowered) name to give cuModuleGetFunction.
  std::map<std::string, std::string> loweredNames;
  std::string log;    ///< NVRTC's warnings (empty on a cache hit)
  double seconds = 0; ///< time spent in NVRTC, or reading the cache entry
  bool cacheHit = false;
};

/// The options every compilation gets before the request's own:
/// --gpu-architecture=ARCH -std=c++17 -default-device -lineinfo -minimal
/// (-minimal: no texture/surface types, device-side launches or CUDA runtime
/// declarations in NVRTC's built-in headers, which emitted code never uses).
std::vector<std::string> baseOptions(const std::string &arch);

/// The options in $HELIONC_NVRTC_OPTIONS (split at blanks), which compile()
/// appends after the request's own and hashes into the cache key: for trying an
/// NVRTC option on every kernel of a program (`HELIONC_NVRTC_OPTIONS=-Ofc=min`).
std::vector<std::string> environmentOptions();

/// Compiles (or fetches from the cache). Throws CompileError carrying the
/// program name and the NVRTC log when the source does not compile, and
/// std::runtime_error for a name expression NVRTC cannot lower.
CompiledProgram compile(const CompileRequest &request);

/// Where cache entries go (not created until the first store).
std::filesystem::path cacheDirectory();

/// False when HELIONC_NO_CACHE is set to anything but "" or "0".
bool cacheEnabled();

/// "13.0": the NVRTC the runtime loaded (loading it on first use: runtime/NvrtcApi.h).
std::string nvrtcVersion();

/// Whether this process has loaded NVRTC (a compile, a cache lookup or nvrtcVersion
/// did): false all along in a program whose kernels are all embedded ahead of time.
bool nvrtcLoaded();

/// The embedded device library: NVRTC include names ("helion/device.cuh")
/// and their text, in a fixed order.
struct EmbeddedHeader {
  const char *name;
  const char *text;
};
const std::vector<EmbeddedHeader> &deviceLibrary();

} // namespace helion::rt
