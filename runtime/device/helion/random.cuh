// helion/random.cuh: counter-based random numbers for hl::rand.
//
// Philox4x32-10 (Salmon et al., SC'11), bit for bit what ref mode computes
// (include/helion/hl/random.h): key {seed low, seed high}, counter {offset low,
// offset high, 0, 0}; the first output word becomes a float in [0, 1) as Triton's
// tl.rand does.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// The first word of Philox4x32-10 of counter {c0, c1, 0, 0} under key {k0, k1}.
__device__ __forceinline__ uint32 philox4x32_10_first(uint32 c0, uint32 c1, uint32 k0, uint32 k1) {
  uint32 c2 = 0, c3 = 0;
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const uint32 hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const uint32 hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c0;
}

/// hl::rand: uniform in [0, 1), (x < 0 ? -x - 1 : x) * 4.6566127342e-10f for the
/// output read as a signed x; round-to-nearest conversion and product, no contraction.
__device__ __forceinline__ float rand_uniform(int64 seed, int64 offset) {
  const uint64 s = static_cast<uint64>(seed), o = static_cast<uint64>(offset);
  const int x = static_cast<int>(philox4x32_10_first(static_cast<uint32>(o), static_cast<uint32>(o >> 32),
                                                     static_cast<uint32>(s), static_cast<uint32>(s >> 32)));
  const int m = x < 0 ? -(x + 1) : x;
  return __fmul_rn(__int2float_rn(m), 4.6566127342e-10f);
}

} // namespace helion::dev
