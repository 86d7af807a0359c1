// The flash-attention tile schedule of runtime/device/helion/attention_tiles.cuh
// compiled for the CPU: over sequence lengths, batches, head dims and tile shapes,
// with and without a causal mask, the tiles cover every (batch, query row) exactly
// once; a causal tile's blocks reach the diagonal of its last row and a consumer's
// blocks the diagonal of its own rows; consumers without rows read one block; causal
// tiles are never more ragged than one consumer's rows past M; and the example of
// the header holds.
#include <cstdio>
#include <vector>
#define __device__
#define __host__
#include "helion/attention_tiles.cuh"
#include "expect.h"

using helion::dev::AttentionTiles;


template <int BM, int BN, bool Causal> static void check(int M, int N, int B, int D) {
  using T = AttentionTiles<BM, BN>;
  const int all = (N + BN - 1) / BN;
  std::vector<int> seen(static_cast<size_t>(B) * M, 0);
  std::vector<int> blockSeen(static_cast<size_t>(B) * T::mBlocks(M), 0);
  for (int t = 0; t < T::numTiles(M, B); ++t) {
    int b = -1, m0 = 0;
    T::template tileAt<Causal>(t, D, M, N, B, b, m0);
    EXPECT(b >= 0 && b < B, " M=%d B=%d t=%d: b %d", M, B, t, b);
    if (b < 0 || b >= B)
      continue;
    EXPECT(m0 % 64 == 0 && m0 + BM > 0 && m0 < M, " M=%d BM=%d t=%d: m0 %d", M, BM, t, m0);
    const int rb = (m0 + (Causal ? T::shift(M) : 0)) / BM;
    if (rb >= 0 && rb < T::mBlocks(M))
      ++blockSeen[static_cast<size_t>(b) * T::mBlocks(M) + rb];
    const int nBlocks = T::template keyBlocks<Causal>(m0, N);
    EXPECT(nBlocks >= 1 && nBlocks <= all, " M=%d t=%d: %d blocks of %d", M, t, nBlocks, all);
    for (int w = 0; w < BM / 64; ++w) {
      const int rowLo = m0 + 64 * w;
      const int mine = T::template consumerBlocks<Causal>(rowLo, M, nBlocks);
      EXPECT(mine >= 1 && mine <= nBlocks, " M=%d t=%d w=%d: %d of %d", M, t, w, mine, nBlocks);
      bool rows = false;
      for (int r = rowLo; r < rowLo + 64; ++r) {
        if (r < 0 || r >= M)
          continue;
        rows = true;
        ++seen[static_cast<size_t>(b) * M + r];
        // The keys row r reads: all, or with the mask those <= r.
        const int need = Causal ? ((r + 1 < N ? r + 1 : N) + BN - 1) / BN : all;
        EXPECT(mine >= need, " M=%d N=%d t=%d row %d: %d blocks, needs %d", M, N, t, r, mine,
               need);
      }
      if (!rows && Causal)
        EXPECT(mine == 1, " M=%d t=%d w=%d: no rows, %d blocks", M, t, w, mine);
    }
  }
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT(seen[i] == 1, " M=%d N=%d B=%d BM=%d causal %d: row %zu seen %d times", M, N, B, BM,
           Causal, i % M, seen[i]);
  for (size_t i = 0; i < blockSeen.size(); ++i)
    EXPECT(blockSeen[i] == 1, " M=%d B=%d: row block %zu seen %d times", M, B, i, blockSeen[i]);
  if (Causal) // rows past M: fewer than one consumer's
    EXPECT(T::mBlocks(M) * BM - T::shift(M) - M < 64, " M=%d BM=%d: ragged", M, BM);
}

template <int BM, int BN> static int sweep() {
  int cases = 0;
  for (int M = 1; M <= 1300; M += 1 + M / 64)
    for (int B : {1, 3})
      for (int D : {64, 128}) {
        check<BM, BN, false>(M, M, B, D);
        check<BM, BN, true>(M, M, B, D);
        check<BM, BN, true>(M, M + 77, B, D); // more keys than queries
        cases += 3;
      }
  // Enough batches for several L2 groups (8 MiB of k and v: 4 batches at N 8192, D 64).
  check<BM, BN, true>(1000, 8192, 9, 64);
  check<BM, BN, true>(2048, 2048, 70, 128);
  return cases + 2;
}

int main() {
  // The header's example: M = N = 1024, BM 192, BN 128 is shifted by 128; the tile of
  // row block 0 starts at -128 and reads block 0; the longest tile comes first.
  using T = AttentionTiles<192, 128>;
  EXPECT(T::shift(1024) == 128, " shift %d", T::shift(1024));
  int b = -1, m0 = 0;
  T::tileAt<true>(T::mBlocks(1024) - 1, 64, 1024, 1024, 1, b, m0);
  EXPECT(b == 0 && m0 == -128 && T::keyBlocks<true>(m0, 1024) == 1, " tile 5: %d %d", b, m0);
  EXPECT(T::consumerBlocks<true>(m0, 1024, 1) == 1, " an idle consumer");
  T::tileAt<true>(0, 64, 1024, 1024, 1, b, m0);
  EXPECT(m0 == 832 && T::keyBlocks<true>(m0, 1024) == 8, " tile 0: %d", m0);
  EXPECT(T::consumerBlocks<true>(832, 1024, 8) == 7, " consumer 0 of tile 0");
  // Without a mask nothing moves.
  T::tileAt<false>(5, 64, 1024, 1024, 1, b, m0);
  EXPECT(m0 == 960, " non-causal tile 5: %d", m0);
  // The header's tileAt example: M = N = 512, BM 128, G 2 (D 64 with N 512: 8 MiB
  // of k and v is 64 batches, so B = 2 makes one group of 2).
  using T2 = AttentionTiles<128, 128>;
  const int want[8][2] = {{0, 3}, {1, 3}, {0, 2}, {1, 2}, {0, 1}, {1, 1}, {0, 0}, {1, 0}};
  for (int t = 0; t < 8; ++t) {
    T2::tileAt<true>(t, 64, 512, 512, 2, b, m0);
    EXPECT(b == want[t][0] && m0 == want[t][1] * 128, " example tile %d: %d %d", t, b, m0);
  }
  int cases = sweep<64, 128>() + sweep<128, 128>() + sweep<128, 64>() + sweep<192, 128>() +
              sweep<192, 64>();
  std::printf("attention tiles: %d cases, %d failures\n", cases, bad);
  return bad == 0 ? 0 : 1;
}
