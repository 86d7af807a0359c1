//===- helion/Tune/Hash.h - Stable digests of text --------------*- C++ -*-===//
//
// A 128-bit digest (two independent 64-bit lanes, finished by splitmix64) that is the
// same on every host and run: cache keys and candidate dedup depend on it. Not a
// cryptographic hash; a collision needs ~2^64 inputs by chance.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace helion::tune {

struct Digest {
  uint64_t hi = 0, lo = 0;
  bool operator==(const Digest &) const = default;
  /// 32 lower-case hex digits.
  std::string hex() const;
};

/// Accumulates fields. Each field is length-prefixed, so ("ab", "c") and ("a", "bc")
/// differ.
class Hasher {
public:
  Hasher &add(std::string_view field);
  Digest digest() const;

private:
  void mix(const void *data, size_t size);
  uint64_t a_ = 0xcbf29ce484222325ull; // FNV-1a offset basis
  uint64_t b_ = 0x9e3779b97f4a7c15ull;
};

/// The digest of one string (a file's bytes, a CUDA source).
Digest hashText(std::string_view text);

/// For unordered containers keyed by Digest.
struct DigestHash {
  size_t operator()(const Digest &d) const { return static_cast<size_t>(d.lo ^ (d.hi << 1)); }
};

} // namespace helion::tune
