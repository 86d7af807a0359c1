//===- helion/Tune/TuneCache.h - Tuning results kept across runs -*- C++ -*-===//
//
// A finished tuning run is stored under a key of everything that can change its
// answer: the kernel file's bytes, the kernel, the arguments' dtypes and shapes, the
// GPU and the toolchain. Entries are JSON files `<dir>/<digest>.json`:
//
//   {"format": 1, "key": {"source_hash": "...", "kernel": "softmax", ...},
//    "key_text": "source=... kernel=softmax args=x=bf16[4096,4096] ...",
//    "result": {...}}
//
// A read compares every key field with the one asked for: a different key (a stale
// or colliding entry), a corrupt or truncated file or another format is a miss, never
// used. Writes are atomic (AtomicFile.h): readers see an old entry or a whole new one.
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace helion::tune {

struct TuneKey {
  std::string sourceHash;        ///< sourceHash() of the kernel file's bytes
  std::string kernel;            ///< kernel name
  std::string args;              ///< ArgSpec::label() after bindArgs()
  std::string gpu;               ///< device name, "NVIDIA H100 80GB HBM3"
  std::string computeCapability; ///< "9.0"
  std::string driver;            ///< CUDA driver version, "13000"
  std::string nvrtc;             ///< "13.0"
  std::string helionc;           ///< helionc's version (helioncVersion())

  /// The fields by name (the entry's "key").
  nlohmann::ordered_json toJson() const;
  /// One line for the log: `source=3f2a... kernel=softmax args=x=bf16[4096,4096] gpu=...`.
  std::string text() const;
  /// 32 hex digits over every field; the entry's file name.
  std::string digest() const;
  bool operator==(const TuneKey &) const = default;
};

/// The hex digest of a kernel file's bytes.
std::string sourceHash(std::string_view bytes);
/// This build's version (the CMake project version).
const char *helioncVersion();

class TuneCache {
public:
  explicit TuneCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  /// `tune/` under the directory the NVRTC disk cache uses (runtime/CompileCache.cpp):
  /// $HELIONC_CACHE_DIR, else $XDG_CACHE_HOME/helionc, else ~/.cache/helionc.
  static std::filesystem::path defaultDirectory();
  /// False when HELIONC_NO_CACHE is set to anything but "" or "0" (as for NVRTC).
  static bool enabled();

  /// The stored result for `key`; nullopt on a miss (absent, stale or damaged).
  std::optional<nlohmann::json> lookup(const TuneKey &key) const;
  /// Stores `result` (an object) for `key`. nullopt on success, else the reason.
  std::optional<std::string> store(const TuneKey &key, const nlohmann::json &result) const;
  std::filesystem::path entryPath(const TuneKey &key) const;
  const std::filesystem::path &directory() const { return dir_; }

private:
  std::filesystem::path dir_;
};

} // namespace helion::tune
