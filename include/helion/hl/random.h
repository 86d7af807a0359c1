// Counter-based random numbers: hl::rand(seed, offsets), uniform in [0, 1) as f32,
// the same bits in ref mode and on the GPU.
//
// The numbers of one seed are the 32-bit words of the Philox4x32-10 stream (Salmon et
// al., SC'11) keyed by the seed (key = {low 32 bits, high 32 bits}): offset o is word
// o % 4 of the block at counter {low 32 bits of o / 4, high 32 bits, 0, 0}, so four
// consecutive offsets share one Philox evaluation (the GPU computes it once). The
// word, read as a signed 32-bit x, becomes (x < 0 ? -x - 1 : x) * 4.6566127342e-10f,
// computed in f32: an integer in [0, 2^31 - 1] times about 2^-31, so never 1. The same
// (seed, offset) always gives the same number, and different offsets independent ones.
#pragma once

#include <array>
#include <cstdint>

#include "helion/hl/block.h"

namespace helion::detail {

/// Philox4x32 with `rounds` rounds: the counter block `ctr` encrypted under `key`.
inline std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key,
                                          int rounds = 10) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int r = 0; r < rounds; ++r) {
    uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    ctr = {static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + kW0, key[1] + kW1};
  }
  return ctr;
}

/// The uniform f32 of hl::rand for one 32-bit Philox output.
inline float uint32ToUniform(uint32_t bits) {
  auto x = static_cast<int32_t>(bits);
  int32_t m = x < 0 ? -(x + 1) : x;  // -x - 1 without overflow at INT32_MIN
  return static_cast<float>(m) * 4.6566127342e-10f;
}

inline float randAt(uint64_t seed, uint64_t offset) {
  const uint64_t block = offset >> 2;
  auto out = philox4x32({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0},
                        {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  return uint32ToUniform(out[offset & 3]);
}

} // namespace helion::detail

namespace helion::hl {

/// Uniform f32 numbers in [0, 1), one per element of the integer block `offsets`
/// (Philox4x32-10 keyed by `seed` at each offset; see the top of this file).
inline Block rand(int64_t seed, const Block& offsets) {
  if (is_floating(offsets.dtype()))
    detail::fail("rand: offsets must be an integer block, got {}", offsets.dtype());
  Block out(DType::f32, offsets.shape());
  for (int64_t k = 0; k < offsets.numel(); ++k)
    out.setFloat(k, detail::randAt(static_cast<uint64_t>(seed), static_cast<uint64_t>(offsets.getInt(k))));
  return out;
}

} // namespace helion::hl
