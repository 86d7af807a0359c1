// helion/attention_tiles.cuh: the tile schedule of flash attention on sm_90a
// (attention_sm90.cuh), compilable for the host so that test/emulation can walk it.
//
// A tile is (batch b, BM query rows from m0); its consumer warpgroup w owns rows
// [m0 + 64 w, m0 + 64 w + 64) and reads BN-key blocks 0, 1, ... Without a causal mask
// row block r starts at m0 = r BM and every consumer reads every block. With one
// (keys past a row are -inf), the row blocks are shifted up by `shift(M)` rows (a
// multiple of 64): the first one starts before row 0, so the ragged row block is the
// one with the fewest keys, not the one with the most. Example: M = N = 1024, BM 192,
// BN 128: unshifted, rows 960..1023 are one consumer's 8 blocks in a tile whose other
// two consumers have no rows; shifted by 128, tile 0 is rows -128..63, its one busy
// consumer reads block 0 only, and the other tiles' three consumers all have rows.
// A consumer with no rows in [0, M) reads block 0 only (and stores nothing).
#pragma once

namespace helion::dev {

template <int BM, int BN> struct AttentionTiles {
  static_assert(BM % 64 == 0, "AttentionTiles: 64 rows per consumer");

  __host__ __device__ static constexpr int mBlocks(int M) { return (M + BM - 1) / BM; }
  /// Tiles (b, row block): mBlocks(M) per batch.
  __host__ __device__ static constexpr int numTiles(int M, int B) { return mBlocks(M) * B; }
  /// Rows the first causal row block starts before row 0: the row blocks' excess over
  /// M, rounded down to whole consumers (64 rows).
  __host__ __device__ static constexpr int shift(int M) { return (mBlocks(M) * BM - M) / 64 * 64; }

  /// Causal tiles are ordered in groups of batches whose keys and values take
  /// about this many bytes of L2 together (at least one batch).
  static constexpr long long kL2GroupBytes = 8ll << 20;
  /// Tile t's batch and first row (head dim D). Without a causal mask b-major: b =
  /// t / mBlocks(M), row block t % mBlocks(M). With one a tile reads the key blocks up
  /// to its diagonal only, so the last row block is the longest: the batches go in
  /// groups of G (kL2GroupBytes of keys and values), and a group's tiles longest first,
  /// the G batches of one row block after another. Example: M = N = 512, BM = 128, G =
  /// 2: tiles 0..7 of the first group are (b 0, row block 3), (1, 3), (0, 2), (1, 2),
  /// ..., (1, 0); at BM 192 (shift 64) row block 2 starts at row 320, block 0 at -64.
  template <bool Causal>
  __host__ __device__ static void tileAt(int t, int D, int M, int N, int B, int& b, int& m0) {
    const int mb = mBlocks(M);
    if constexpr (!Causal) {
      b = t / mb;
      m0 = t % mb * BM;
    } else {
      const long long kvBytes = 4ll * D * (N > 1 ? N : 1); // k and v of one batch, 2 bytes each
      const long long fit = kL2GroupBytes / kvBytes;
      const int G = fit < 1 ? 1 : fit > B ? B : static_cast<int>(fit);
      const int g = t / (G * mb), w = t % (G * mb);
      const int inGroup = B - g * G < G ? B - g * G : G;
      b = g * G + w % inGroup;
      m0 = (mb - 1 - w / inGroup) * BM - shift(M);
    }
  }
  /// The key blocks of the tile at m0: all, or with a causal mask those up to the
  /// diagonal of its last row (m0 + BM > 0 always).
  template <bool Causal> __host__ __device__ static int keyBlocks(int m0, int N) {
    const int all = (N + BN - 1) / BN;
    const int diag = (m0 + BM + BN - 1) / BN;
    return Causal && diag < all ? diag : all;
  }
  /// The key blocks consumer rows [rowLo, rowLo + 64) read, of a tile's nBlocks: with a
  /// causal mask those up to its own diagonal (no rows in [0, M): block 0 only), so that
  /// with 3 consumers (BM 192, BN 128) the first does a block less than the last in
  /// two of every three tiles; at BM 128, BN 128 every consumer reads them all.
  template <bool Causal> __host__ __device__ static int consumerBlocks(int rowLo, int M, int nBlocks) {
    if constexpr (!Causal)
      return nBlocks;
    if (rowLo >= M || rowLo + 64 <= 0)
      return 1;
    const int end = rowLo + 64 < M ? rowLo + 64 : M;
    const int mine = (end + BN - 1) / BN;
    return mine < 1 ? 1 : mine < nBlocks ? mine : nBlocks;
  }
};

} // namespace helion::dev
