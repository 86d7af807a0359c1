// helion/stream_k.cuh: splitting the last wave of a persistent GEMM in k (after
// Osama et al., "Stream-K", PPoPP'23), used by the grouped GEMM's kernels
// (gemm_grouped.cuh, gemm_grouped_rows.cuh).
//
// A persistent grid of P CTAs over T output tiles of kB k-blocks each takes
// ceil(T / P) tile times when every tile is one CTA's work: the last wave leaves
// P - T % P CTAs idle. With W = T / P full waves and R = T % P tiles left, the last
// R tiles are cut into s equal k-pieces each (piece j: k-blocks [j * kB / s,
// (j + 1) * kB / s), rounded down), numbered tile by tile (piece p of split tile
// p / s), and dealt out one per CTA:
//   tiles [0, W * P)   whole ("data-parallel"): tile t on CTA t % P, in turn;
//   pieces [0, R * s)  piece p on CTA p (R * s <= P).
// The last wave then takes 1 / s of a tile. The pieces start together and every
// split tile has its pieces at the same k, so CTAs reading one row of A or one
// column of B read the same k-blocks at about the same time, as in the whole waves.
// (Shares of one P-th of the split k-blocks each, as in the stream-K paper, start at
// drifting k instead; on the H100 at k = 4096 that ran the split part 2.75x slower
// than its share once the split tiles' A and B panels outgrew about 25 MB of L2.
// Dealing R * s > P pieces out in several rounds lost 7-9% on the GPU check's
// 1.58-wave case, so a last wave more than half full stays whole.)
//
// Piece p stores its partial sums in slot p; the last of a tile's s pieces to arrive
// (an atomic counter per split tile) adds the s partials in piece order (so the sum
// does not depend on who arrives last) and runs the epilogue. No CTA waits for
// another: nothing depends on which CTAs run at once.
//
// Example: T = 10, P = 4, kB = 32: W = 2, R = 2; s = 2 costs 16 k-blocks plus 5
// (see plan), 11 fewer than a whole tile: split. Tiles 0-7 whole (CTA c: tiles
// c and c + 4), then pieces 0-3: CTA 0 tile 8's k-blocks [0, 16) (slot 0), CTA 1
// [16, 32) (slot 1), CTAs 2 and 3 tile 9's.
//
// Host-compilable (integer arithmetic only): test/emulation/stream_k.cpp checks
// the units cover every k-block once, the slots and the pieces' k.
#pragma once
// No includes: integer arithmetic only.

#ifndef __CUDACC__
#define HELION_SK_FN inline
#else
#define HELION_SK_FN __host__ __device__ __forceinline__
#endif

namespace helion::dev {

/// Bytes of the counters at the start of a stream-K workspace (one int per split
/// tile and consumer warpgroup; the last int, kStreamKNextUnit, a dynamic schedule's
/// next unit); P tile slots of partial sums follow.
constexpr int kStreamKCounterBytes = 65536;
constexpr int kStreamKNextUnit = kStreamKCounterBytes / 4 - 1;

/// One CTA's work on one tile: k-blocks [k0, k1). slot < 0: the whole tile; else
/// the piece's number, its partial sums' slot.
struct StreamKUnit {
  int tile, k0, k1, slot;
};

struct StreamK {
  int tiles = 0, ctas = 1, kBlocks = 0;
  int dpTiles = 0; ///< tiles done whole; the rest (R) are split
  int pieces = 1;  ///< s: pieces per split tile

  /// The split of `tiles` tiles of `kBlocks` k-blocks over `ctas` CTAs, or none
  /// (every tile whole) when `enabled` is false or it would not pay. The cost of s
  /// pieces in k-blocks: ceil(kB / s), plus 2 s + 1 for the partials (the last piece
  /// of a tile stores its own and reads s; the GPU check's splits in 2 to 5 pieces
  /// gained about what this predicts, one in 8 pieces gained nothing). The cheapest s
  /// in 2 .. min(8, kB / 4) with R * s <= P is taken when it costs at least 8
  /// k-blocks less than a whole tile. Counters must fit: R * consumers ints before
  /// kStreamKNextUnit.
  HELION_SK_FN static StreamK plan(int tiles, int ctas, int kBlocks, int consumers,
                                   bool enabled) {
    StreamK s;
    s.tiles = tiles;
    s.ctas = ctas < 1 ? 1 : ctas;
    s.kBlocks = kBlocks;
    s.dpTiles = tiles;
    const int rest = tiles % s.ctas;
    if (!enabled || tiles <= 0 || rest == 0 ||
        static_cast<long long>(rest) * consumers > kStreamKNextUnit)
      return s;
    int best = 1, bestCost = kBlocks;
    for (int n = 2; n <= 8 && n <= kBlocks / 4 && rest * n <= s.ctas; ++n) {
      const int cost = (kBlocks + n - 1) / n + 2 * n + 1;
      if (cost < bestCost) {
        best = n;
        bestCost = cost;
      }
    }
    if (best < 2 || kBlocks - bestCost < 8)
      return s;
    s.dpTiles = tiles - rest;
    s.pieces = best;
    return s;
  }

  HELION_SK_FN bool split() const { return dpTiles < tiles; }
  /// The k-blocks a CTA spends on the last wave: none when the tiles fill whole waves,
  /// a whole tile's when it stays whole, else a piece's and its partials' (plan's cost).
  HELION_SK_FN int lastWaveBlocks() const {
    if (tiles % ctas == 0)
      return 0;
    if (!split())
      return kBlocks;
    return (kBlocks + pieces - 1) / pieces + 2 * pieces + 1;
  }
  /// Pieces of all split tiles.
  HELION_SK_FN int splitPieces() const { return (tiles - dpTiles) * pieces; }
  /// The first k-block of piece j of a tile.
  HELION_SK_FN int pieceBegin(int j) const { return kBlocks * j / pieces; }
  /// The first slot (piece) of split tile `tile`: its pieces are slots first ..
  /// first + pieces - 1.
  HELION_SK_FN int firstSlot(int tile) const { return (tile - dpTiles) * pieces; }
  /// All units, numbered: the whole tiles, then the pieces (StreamKWalk gives CTA c the
  /// units c, c + ctas, ..., as dpTiles is a multiple of ctas when there are pieces).
  HELION_SK_FN int units() const { return dpTiles + splitPieces(); }
  HELION_SK_FN StreamKUnit unitAt(int i) const {
    if (i < dpTiles)
      return {i, 0, kBlocks, -1};
    const int p = i - dpTiles, j = p % pieces;
    return {dpTiles + p / pieces, pieceBegin(j), pieceBegin(j + 1), p};
  }
};

/// How a persistent launch deals out its units (StreamK::units(); the row-fitting grouped
/// GEMM's producer, gemm_grouped_rows.cuh): CTA c takes unit c first (no atomic's round
/// trip before its first loads); then, with a counter (an int in the workspace, 0 when the
/// launch starts), unit ctas + v, v the counter's value when the CTA asks (atomicAdd 1:
/// whichever CTA is ready first), else c + ctas, c + 2 ctas, ...; a CTA stops at its
/// first unit >= units. With the counter each CTA that has a first unit asks until it is
/// refused once, `units` asks in all, so the ask that gets v = units - 1 is the launch's
/// last and puts the counter back to 0 for the next launch (test/emulation/stream_k.cpp
/// plays random orders of asks).
struct UnitDeal {
  int units, ctas;
  HELION_SK_FN int first(int cta) const { return cta; }
  /// The unit of an ask that got counter value v.
  HELION_SK_FN int asked(int v) const { return ctas + v; }
  /// Whether the ask that got v was the launch's last (then reset the counter).
  HELION_SK_FN bool lastAsk(int v) const { return v == units - 1; }
};

/// CTA c's units, in order: its whole tiles, then its piece if it has one (tile
/// numbers never decrease, as GroupedTiles::seek needs).
struct StreamKWalk {
  const StreamK& s;
  int t; ///< the next whole tile
  int p; ///< the next piece

  HELION_SK_FN StreamKWalk(const StreamK& plan, int cta) : s(plan), t(cta), p(cta) {}

  HELION_SK_FN bool next(StreamKUnit& u) {
    if (t < s.dpTiles) {
      u = {t, 0, s.kBlocks, -1};
      t += s.ctas;
      return true;
    }
    if (p >= s.splitPieces())
      return false;
    const int j = p % s.pieces;
    u = {s.dpTiles + p / s.pieces, s.pieceBegin(j), s.pieceBegin(j + 1), p};
    p += s.ctas;
    return true;
  }
};

} // namespace helion::dev

#undef HELION_SK_FN
