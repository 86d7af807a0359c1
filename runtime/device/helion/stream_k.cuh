// helion/stream_k.cuh: stream-K work units for persistent GEMMs (Osama et al.,
// "Stream-K", PPoPP'23), used by the grouped GEMM (gemm_grouped.cuh).
//
// A persistent grid of P CTAs over T output tiles of kB k-blocks each takes
// ceil(T / P) tile times when every tile is one CTA's work: the last wave leaves
// P - T % P CTAs idle. Stream-K splits the k-blocks of the last tiles evenly over
// all P CTAs instead:
//   tiles [0, dpTiles)   whole ("data-parallel"): tile t on CTA t % P, in turn;
//   tiles [dpTiles, T)   their skIters = (T - dpTiles) * kB k-blocks numbered tile by
//                        tile, CTA c taking [skIters * c / Q, skIters * (c + 1) / Q)
//                        for c < Q = min(P, skIters) (every share at least one).
// dpTiles is a multiple of P, so every CTA does dpTiles / P whole tiles and then
// the same share (within one k-block) of the split ones. With W = T / P full
// waves and R = T % P tiles left, the split covers R + P tiles (W >= 1: one wave
// and the rest, each CTA 1 + R / P tiles' worth) or all R (W = 0).
//
// A unit is one CTA's k-blocks [k0, k1) of one tile. A tile split over n CTAs has n
// "contributors" cFirst .. cFirst + n - 1; each stores its partial sums into its
// slot, and the last to arrive (an atomic counter per tile) adds the n partials in
// contributor order (so the sum does not depend on who arrives last) and runs the
// epilogue. No CTA waits for another: nothing depends on which CTAs run at once.
// CTA c owns two slots: 2c for the unit that starts its range, 2c + 1 for the
// one that ends it (a range has at most those two partial units).
//
// Example: T = 10, P = 4, kB = 32: W = 2, R = 2 ((4 - 2) * 32 >= 8 * 4: split),
// dpTiles = 4 (CTA c: tile c), then 6 tiles = 192 k-blocks, 48 per CTA: CTA 0 takes
// tile 4 whole and tile 5's k-blocks [0, 16) (slot 1), CTA 1 tile 5 [16, 32)
// (slot 2) and tile 6 whole; tile 5's contributors are CTAs 0 and 1.
//
// Host-compilable (integer arithmetic only): test/emulation/stream_k.cpp checks
// the units cover every k-block once and the contributors' slots.
#pragma once
// No includes: integer arithmetic only, with `long long` for the k-block numbers.

#ifndef __CUDACC__
#define HELION_SK_FN inline
#else
#define HELION_SK_FN __host__ __device__ __forceinline__
#endif

namespace helion::dev {

/// Bytes of the counters at the start of a stream-K workspace (one int per split
/// tile and consumer warpgroup); the partial-sum slots follow.
constexpr int kStreamKCounterBytes = 65536;

/// One CTA's work on one tile: k-blocks [k0, k1). slot < 0: the whole tile.
struct StreamKUnit {
  int tile, k0, k1, slot;
};

struct StreamK {
  int tiles = 0, ctas = 1, kBlocks = 0;
  int dpTiles = 0;       ///< tiles done whole; the rest are split
  long long skIters = 0; ///< k-blocks of the split tiles
  int skCtas = 1;        ///< CTAs sharing them: min(ctas, skIters), none of them idle

  /// The split of `tiles` tiles of `kBlocks` k-blocks over `ctas` CTAs, or none
  /// (every tile whole) when `enabled` is false or it would not pay: the split
  /// is taken when the idle CTAs of the last wave stand for at least 8 k-blocks of
  /// every CTA ((P - R) * kB >= 8 * P), about what storing and adding the partials
  /// costs, and only while the counters fit (2 * P * consumers ints).
  HELION_SK_FN static StreamK plan(int tiles, int ctas, int kBlocks, int consumers,
                                   bool enabled) {
    StreamK s;
    s.tiles = tiles;
    s.ctas = ctas < 1 ? 1 : ctas;
    s.kBlocks = kBlocks;
    s.dpTiles = tiles;
    const int waves = tiles / s.ctas, rest = tiles % s.ctas;
    const bool pays = static_cast<long long>(s.ctas - rest) * kBlocks >= 8 * static_cast<long long>(s.ctas);
    const bool fits = 2 * static_cast<long long>(s.ctas) * consumers * 4 <= kStreamKCounterBytes;
    if (!enabled || tiles <= 0 || kBlocks < 2 || rest == 0 || !pays || !fits)
      return s;
    const int split = waves >= 1 ? rest + s.ctas : rest;
    s.dpTiles = tiles - split;
    s.skIters = static_cast<long long>(split) * kBlocks;
    s.skCtas = s.skIters < s.ctas ? static_cast<int>(s.skIters) : s.ctas;
    return s;
  }

  HELION_SK_FN bool split() const { return skIters > 0; }
  /// The first split k-block of CTA c (c >= skCtas: skIters, an empty share).
  HELION_SK_FN long long begin(int c) const {
    return c >= skCtas ? skIters : skIters * c / skCtas;
  }
  /// The CTA whose share holds split k-block i.
  HELION_SK_FN int owner(long long i) const {
    return static_cast<int>(((i + 1) * skCtas + skIters - 1) / skIters) - 1;
  }
  /// The contributors of split tile `tile`: CTAs first .. first + count - 1.
  HELION_SK_FN void contributors(int tile, int& first, int& count) const {
    const long long b = static_cast<long long>(tile - dpTiles) * kBlocks;
    first = owner(b);
    count = owner(b + kBlocks - 1) - first + 1;
  }
  /// The slot that CTA c stores its partial of split tile `tile` in (c contributes).
  HELION_SK_FN int slot(int tile, int c) const {
    const long long b = static_cast<long long>(tile - dpTiles) * kBlocks;
    return 2 * c + (begin(c) < b ? 1 : 0);
  }
};

/// CTA c's units, in order: its whole tiles, then its share of the split ones
/// (tile numbers never decrease, as GroupedTiles::seek needs).
struct StreamKWalk {
  const StreamK& s;
  int c;
  int t;          ///< the next whole tile
  long long i, end;   ///< the next split k-block, and the end of c's share

  HELION_SK_FN StreamKWalk(const StreamK& plan, int cta)
      : s(plan), c(cta), t(cta), i(plan.begin(cta)), end(plan.begin(cta + 1)) {}

  HELION_SK_FN bool next(StreamKUnit& u) {
    if (t < s.dpTiles) {
      u = {t, 0, s.kBlocks, -1};
      t += s.ctas;
      return true;
    }
    if (i >= end)
      return false;
    const int k0 = static_cast<int>(i % s.kBlocks);
    const long long left = end - i;
    const int k1 = left < s.kBlocks - k0 ? k0 + static_cast<int>(left) : s.kBlocks;
    u.tile = s.dpTiles + static_cast<int>(i / s.kBlocks);
    u.k0 = k0;
    u.k1 = k1;
    u.slot = k0 == 0 && k1 == s.kBlocks ? -1 : 2 * c + (i == s.begin(c) ? 0 : 1);
    i += k1 - k0;
    return true;
  }
};

} // namespace helion::dev

#undef HELION_SK_FN
