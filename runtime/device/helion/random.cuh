// helion/random.cuh: counter-based random numbers for hl::rand.
//
// Bit for bit what ref mode computes (include/helion/hl/random.h): offset o of a seed
// is word o % 4 of Philox4x32-10 (Salmon et al., SC'11) under key {seed low, seed
// high} at counter {o / 4 low, o / 4 high, 0, 0}, mapped into [0, 1). One Philox
// evaluation gives four numbers: a thread that walks consecutive offsets (a dropout
// mask along a row) keeps the last block in a RandStream and evaluates Philox once
// per four offsets; a run of V consecutive offsets that starts a block (uniform_run)
// takes each block's four words without compares.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// The four words of Philox4x32-10 of counter {c0, c1, 0, 0} under key {k0, k1}.
struct Philox4 {
  uint32 w0, w1, w2, w3;
};

__device__ __forceinline__ Philox4 philox4x32_10(uint32 c0, uint32 c1, uint32 k0, uint32 k1) {
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
  return {c0, c1, c2, c3};
}

/// A Philox word as hl::rand's uniform in [0, 1): (x < 0 ? -x - 1 : x) * 4.6566127342e-10f
/// for the word read as a signed x; round-to-nearest conversion and product, no contraction.
__device__ __forceinline__ float philox_uniform(uint32 word) {
  const int x = static_cast<int>(word);
  const int m = x < 0 ? -(x + 1) : x;
  return __fmul_rn(__int2float_rn(m), 4.6566127342e-10f);
}

/// Word `i % 4` of `p`, selected without indexing (an indexed array would go to local memory).
__device__ __forceinline__ uint32 philox_word(const Philox4& p, uint64 i) {
  const uint32 s = static_cast<uint32>(i & 3);
  return s == 0 ? p.w0 : s == 1 ? p.w1 : s == 2 ? p.w2 : p.w3;
}

__device__ __forceinline__ Philox4 philox_block(uint64 seed, uint64 block) {
  return philox4x32_10(static_cast<uint32>(block), static_cast<uint32>(block >> 32),
                       static_cast<uint32>(seed), static_cast<uint32>(seed >> 32));
}

/// hl::rand of one offset.
__device__ __forceinline__ float rand_uniform(int64 seed, int64 offset) {
  const uint64 o = static_cast<uint64>(offset);
  return philox_uniform(philox_word(philox_block(static_cast<uint64>(seed), o >> 2), o));
}

/// hl::rand of a thread's offsets in turn, remembering the last Philox block: offsets
/// that fall in the same block of four as the one before cost a select, not a Philox.
struct RandStream {
  uint64 seed = 0, block = ~0ull; // o >> 2 < 2^62: never ~0 before the first call
  Philox4 words{0, 0, 0, 0};

  __device__ __forceinline__ float uniform(int64 s, int64 offset) {
    const uint64 o = static_cast<uint64>(offset), b = o >> 2;
    if (b != block || static_cast<uint64>(s) != seed) {
      seed = static_cast<uint64>(s);
      block = b;
      words = philox_block(seed, b);
    }
    return philox_uniform(philox_word(words, o));
  }

  /// hl::rand of the V consecutive offsets o0, o0 + 1, ..., o0 + V - 1 into r (a thread's
  /// vector run, where the rand-runs pass found the offsets to step by one along it).
  /// When o0 starts a Philox block and V is a multiple of four, each block's four words
  /// go straight to four numbers: no block compare or word select per element; else the
  /// offsets go through uniform() one by one.
  template <int V>
  __device__ __forceinline__ void uniform_run(int64 s, int64 o0, float (&r)[V]) {
    const uint64 o = static_cast<uint64>(o0);
    if constexpr (V % 4 == 0) {
      if ((o & 3) == 0) {
#pragma unroll
        for (int g = 0; g < V / 4; ++g) {
          const Philox4 w = philox_block(static_cast<uint64>(s), (o + 4 * g) >> 2);
          r[4 * g] = philox_uniform(w.w0);
          r[4 * g + 1] = philox_uniform(w.w1);
          r[4 * g + 2] = philox_uniform(w.w2);
          r[4 * g + 3] = philox_uniform(w.w3);
        }
        return;
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v)
      r[v] = uniform(s, static_cast<int64>(o + static_cast<uint64>(v)));
  }
};

} // namespace helion::dev
