// helion/stream_k.cuh: stream-K work units for persistent GEMMs (Osama et al.,
// "Stream-K", PPoPP'23), used by the grouped GEMM (gemm_grouped.cuh).
//
// A persistent grid of P CTAs over T output tiles of kB k-blocks each takes
// ceil(T / P) tile times when every tile is one CTA's work: the last wave leaves
// P - T % P CTAs idle. With W = T / P full waves and R = T % P tiles left, the
// k-blocks of the last R tiles are split over Q = R * s CTAs instead, s pieces per
// tile (s = P / R at most, see plan):
//   tiles [0, W * P)   whole ("data-parallel"): tile t on CTA t % P, in turn;
//   tiles [W * P, T)   their skIters = R * kB k-blocks numbered tile by tile, CTA c
//                      taking [skIters * c / Q, skIters * (c + 1) / Q) for c < Q:
//                      CTAs r * s .. r * s + s - 1 take tile W * P + r, piece j
//                      from k-block j * kB / s on (rounded down).
// The last wave then takes 1 / s of a tile time. Every tile has the same pieces at
// the same k, and all CTAs start them together, so CTAs reading one row of A or one
// column of B read the same k-blocks at about the same time, as in the whole waves.
// (Shares of one P-th of the split k-blocks each, as in the stream-K paper, start at
// drifting k instead; on the H100 at k = 4096 that ran the split part 2.75x slower
// than its share once the split tiles' A and B panels outgrew about 25 MB of L2.)
//
// A unit is one CTA's k-blocks [k0, k1) of one tile. A tile split over n CTAs has n
// "contributors" cFirst .. cFirst + n - 1; each stores its partial sums into its
// slot, and the last to arrive (an atomic counter per tile) adds the n partials in
// contributor order (so the sum does not depend on who arrives last) and runs the
// epilogue. No CTA waits for another: nothing depends on which CTAs run at once.
// CTA c owns two slots: 2c for the unit that starts its range, 2c + 1 for the
// one that ends it (a range has at most those two partial units).
//
// Example: T = 10, P = 4, kB = 32: W = 2, R = 2, s = 2 (32 - 16 - 2 >= 8: split);
// tiles 0-7 whole (CTA c: tiles c and c + 4), then tiles 8 and 9 = 64 k-blocks, 16
// per CTA: CTA 0 takes tile 8's k-blocks [0, 16) (slot 0), CTA 1 [16, 32) (slot 2),
// CTAs 2 and 3 tile 9's; tile 8's contributors are CTAs 0 and 1.
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
  int skCtas = 1;        ///< CTAs sharing them (R * s), each at least one k-block

  /// The split of `tiles` tiles of `kBlocks` k-blocks over `ctas` CTAs, or none
  /// (every tile whole) when `enabled` is false or it would not pay. Pieces per
  /// tile: s = min(P / R, 8, kB / 4) (the last contributor reads s partials, about
  /// a k-block each, so more pieces stop paying); split when s >= 2 and the
  /// k-blocks saved exceed those added by 8: kB - kB / s - s >= 8. So only when
  /// R <= P / 2. Counters must fit: R * consumers ints.
  HELION_SK_FN static StreamK plan(int tiles, int ctas, int kBlocks, int consumers,
                                   bool enabled) {
    StreamK s;
    s.tiles = tiles;
    s.ctas = ctas < 1 ? 1 : ctas;
    s.kBlocks = kBlocks;
    s.dpTiles = tiles;
    const int rest = tiles % s.ctas;
    if (!enabled || tiles <= 0 || rest == 0 ||
        static_cast<long long>(rest) * consumers * 4 > kStreamKCounterBytes)
      return s;
    int pieces = s.ctas / rest;
    pieces = pieces < 8 ? pieces : 8;
    pieces = pieces < kBlocks / 4 ? pieces : kBlocks / 4;
    if (pieces < 2 || kBlocks - kBlocks / pieces - pieces < 8)
      return s;
    s.dpTiles = tiles - rest;
    s.skIters = static_cast<long long>(rest) * kBlocks;
    s.skCtas = rest * pieces;
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
