//===- Hash.cpp - Stable digests of text -----------------------------------===//
#include "helion/Tune/Hash.h"

#include <fmt/format.h>

namespace helion::tune {
namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

} // namespace

std::string Digest::hex() const { return fmt::format("{:016x}{:016x}", hi, lo); }

Hasher &Hasher::add(std::string_view field) {
  // The length as 8 little-endian bytes, so that the digest is the same on every host.
  uint64_t size = field.size();
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>(size >> (8 * i));
  mix(bytes, sizeof(bytes));
  mix(field.data(), field.size());
  return *this;
}

void Hasher::mix(const void *data, size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    a_ = (a_ ^ p[i]) * 0x100000001b3ull;                       // FNV-1a
    b_ = (b_ + p[i] + 1) * 0xff51afd7ed558ccdull ^ (b_ >> 29); // a second, different lane
  }
}

Digest Hasher::digest() const { return {splitmix(a_), splitmix(b_ ^ a_)}; }

Digest hashText(std::string_view text) { return Hasher().add(text).digest(); }

} // namespace helion::tune
