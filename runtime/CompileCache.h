//===- CompileCache.h - on-disk cubin cache (private) -----------*- C++ -*-===//
//
// One file per entry, <dir>/<32 hex digits of the key>.cubin, laid out as
//   "HLNCACHE" | u32 format | u64 payload bytes | u64 checksum(payload) | payload
// where payload = u32+bytes key (the entry's own, checked on reading), u32 count,
// then per lowered name: u32+bytes expression,
// u32+bytes lowered name; then u64+bytes cubin. Little-endian (x86/arm hosts).
// A file that is short, has the wrong magic, format, size, checksum or key is a miss
// (and is then rewritten). Entries are written to a temporary file and renamed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Compile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace helion::rt::detail {

/// A 128-bit hash (two independent 64-bit lanes) as 32 hex digits. Fields are
/// length-prefixed so that ("ab","c") and ("a","bc") differ.
class KeyHasher {
public:
  KeyHasher &add(std::string_view field);
  std::string hex() const;

private:
  void mix(const void *data, std::size_t size);
  std::uint64_t a_ = 0xcbf29ce484222325ull; // FNV-1a offset basis
  std::uint64_t b_ = 0x9e3779b97f4a7c15ull;
};

/// FNV-1a 64 of `data`, finished by a splitmix64 avalanche.
std::uint64_t checksum(std::string_view data);

std::string serializeEntry(const std::string &key, const CompiledProgram &program);
/// nullopt when the bytes are not a whole, intact entry for `key`.
std::optional<CompiledProgram> parseEntry(std::string_view bytes, const std::string &key);

/// nullopt when absent or damaged.
std::optional<CompiledProgram> readCacheEntry(const std::string &key);
/// Best effort: a cache that cannot be written only costs time.
void writeCacheEntry(const std::string &key, const CompiledProgram &program);

/// The path of the entry for `key` (tests corrupt it on purpose).
std::filesystem::path cacheEntryPath(const std::string &key);

} // namespace helion::rt::detail
