// helion/chain_sm90.cuh: two chained dots (a back-to-back GEMM) on TMA + wgmma (sm_90a).
//
//   out[r, c] = epi( sum_j P[r, j] B2[j, c] )
//   P[r, j]   = round_TIn( act( sum_k A[r, k] B1[k, j], r, j ) )
//
// e.g. a two-layer MLP relu(x @ w1) @ w2, or (q @ k^T) @ v without a softmax. The
// structure of attention_sm90.cuh with the online softmax replaced by an elementwise
// `act` (no row max, no row sum, no rescale of O). One CTA per output tile of BM rows
// and DV columns of one of B batches (tile t: batch t / numTiles; of t % numTiles the
// m-block / nBlocks, n-block % nBlocks); 128 * (Consumers + 1) threads:
//
//   warpgroup 0 (producer, one thread works): TMA loads of the A row tile (DK
//     columns, all of them, once per tile) and of the hidden blocks j: B1[:, j BN ..
//     + BN] and B2[j BN .. + BN, n0 .. n0 + DV] into a ring of `Stages` slots; each
//     has its own `full` mbarrier (expect_tx) and `empty` mbarrier (one arrive per
//     consumer warp), so B1[j + Stages] loads as soon as every S of block j is done,
//     before its P B2[j] is.
//   warpgroup 1 + w (consumer w): rows [64 w, 64 w + 64) of the tile.
//
// A consumer's hidden block j, with the P B2 of block j - 1 in flight under the
// activation of block j (attention_sm90.cuh's S / PV overlap):
//
//   wait B1[j]   S = A B1[j]: wgmma m64nBNk16, A K-major (desc_sw128(.., 16, 1024),
//                k16 step = +32 bytes inside a panel, the next panel after 4 steps);
//                B1 MN-major (tnspB = 1, desc_sw128(b1, DK * 128, 1024): LBO = one
//                panel = the next 64 hidden columns; k16 step = 16 rows = +2048
//                bytes), or with B1KMajor K-major like A; commit
//   wait B2[j-1] O += P[j-1] B2[j-1]: wgmma m64nDVk16, A = P from registers, B2
//                MN-major (desc_sw128(b2, BN * 128, 1024)); commit
//   wait<1>      S is done: release B1[j]; x = act(s) (hidden columns >= H: 0, act
//                not called)
//   wait<0>      P B2[j-1] is done: release B2[j-1]; P[j] = pack2_rn(x)
//
// (DV 256 with BN 128 does not fit O, S and P in registers at once: it finishes
// P[j-1] B2[j-1] before it issues S[j], and activates S[j] with nothing in flight.)
//
// With two consumers they take turns issuing their wgmmas (named barriers 1 + w:
// warpgroup_pipeline.cuh's PingPong, as attention_sm90.cuh): one's activation and
// epilogue run under the other's products.
// The A tile is released after the tile's last S, so the producer loads the next
// tile's A while the consumers finish the last P B2 and the epilogue.
//
// Shared memory (1024-byte aligned): A at 0, B1 slot s at kOffB1 + s kBytesB1, B2
// slot s at kOffB2 + s kBytesB2, then the mbarriers. Every tile is a set of panels
// of 128-byte rows (64 elements, TMA's 128-byte swizzle), one TMA box each:
//   A:  DK / 64 panels of BM rows (panel p: columns 64 p of rows m0 ..)
//   B1: BN / 64 panels of DK rows (panel p: hidden columns j BN + 64 p, rows 0 ..
//       DK), or with B1KMajor DK / 64 panels of BN rows (columns 64 p of the rows
//       j BN .. of B1^T)
//   B2: DV / 64 panels of BN rows (panel p: columns n0 + 64 p of rows j BN ..)
// Register layouts are attention_sm90.cuh's (WgmmaAcc; S[8 kk .. 8 kk + 7] is the
// k16 block kk of P as an m16n8k16 A fragment).
//
// Template parameters of ChainSm90<...>:
//   TIn        bf16 or f16 (A, B1, B2, and P)
//   DK         A's columns (the first dot's K, resident in shared memory): 64, 128, 256
//   DV         output columns per tile: 64, 128 or 256
//   BN         hidden columns per block: 64 or 128
//   Consumers  1 or 2 consumer warpgroups: BM = 64 * Consumers rows per tile
//   Stages     B1 / B2 ring depth, 2 to 4 (kSmemBytes <= 227 KB decides)
//   B1KMajor   false: B1 is stored [DK, H] (w1[k, h]); true: B1 is stored [H, DK]
//              and read as its transpose (kt[h, k], attention's K layout)
//
// Host: three 3-D tensor maps (Swizzle::b128, 2-byte elements, innermost first; the
// outermost dim is the batch, of extent 1 for unbatched operands):
//   mapA   A [B, M, DK] row-major, box {64, kBoxRowsA = BM, 1}
//   mapB1  B1 [B, DK, H] row-major, box {64, DK, 1}; with B1KMajor B1^T [B, H, DK], box
//          {64, BN, 1} (kBoxRowsB1 either way)
//   mapB2  B2 [B, H, NOut] row-major, box {64, kBoxRowsB2 = BN, 1}
// Rows and columns out of bounds read as zeros (rows past M, hidden columns past
// H, output columns past NOut). Block kThreads, dynamic shared memory kSmemBytes
// (raise the limit), grid B * numTiles(M, NOut) CTAs or fewer (persistent: CTA c runs
// tiles c, c + gridDim.x, ...). The kernel needs __launch_bounds__(kThreads, 1)
// (setmaxnreg) and its maps as `const __grid_constant__ hd::TensorMap`.
//
// Functors:
//   `float act(float s, int64 row, int64 hcol) const`: the activation of S at (row,
//     hidden column hcol) before rounding to TIn (the kernel rounds, pack2_rn). Not
//     called for hcol >= H (P is 0 there; act(0) need not be 0). Called for rows past
//     M (their results are dropped).
//   `void epi(int64 b, int64 row, int64 col, float o0, float o1) const`: the fp32 sums
//     of output columns col and col + 1 of `row` of batch b, for every row < M and even
//     col < NOut of the tile (NOut % 8 == 0: a pair is all in or all out).
#pragma once
#include "helion/async.cuh"
#include "helion/gemm_sm90_pipeline.cuh"
#include "helion/types.cuh"
#include "helion/warpgroup_pipeline.cuh" // ring, ping-pong, fences, wgmma issue, TMA panels

namespace helion::dev {

template <class TIn, int DK, int DV, int BN = 64, int Consumers = 2, int Stages = 2,
          bool B1KMajor = false>
struct ChainSm90 {
  static_assert(is_same_v<TIn, bf16> || is_same_v<TIn, f16>, "ChainSm90: bf16 or f16");
  static_assert(DK == 64 || DK == 128 || DK == 256, "ChainSm90: DK 64, 128 or 256");
  static_assert(DV == 64 || DV == 128 || DV == 256, "ChainSm90: DV 64, 128 or 256");
  static_assert(BN == 64 || BN == 128, "ChainSm90: BN 64 or 128");
  static_assert(Consumers == 1 || Consumers == 2, "ChainSm90: 1 or 2 consumer warpgroups");
  static_assert(Stages >= 2 && Stages <= 4, "ChainSm90: 2 to 4 stages");

  static constexpr int kThreads = 128 * (Consumers + 1);
  static constexpr int BM = 64 * Consumers;
  static constexpr int kBytesA = BM * DK * 2, kBytesB1 = DK * BN * 2, kBytesB2 = BN * DV * 2;
  static constexpr int kMaxSmem = 227 * 1024; ///< per CTA on sm_90
  /// mbarriers: A full, A empty, then B1 full, B2 full, B1 empty, B2 empty per stage.
  static constexpr int kNumBars = 2 + 4 * Stages;
  /// 1024 bytes of alignment slack, A, the B1 and B2 rings, the mbarriers.
  static constexpr int kSmemBytes = 1024 + kBytesA + Stages * (kBytesB1 + kBytesB2) + 8 * kNumBars;
  static_assert(kSmemBytes <= kMaxSmem, "ChainSm90: over the 227 KB of shared memory of a CTA");
  static constexpr int kBoxRowsA = BM, kBoxRowsB1 = B1KMajor ? BN : DK, kBoxRowsB2 = BN,
                       kBoxCols = 64;
  /// setmaxnreg moves registers within what the CTA was launched with (kThreads x the
  /// launch-bound count: 384 x 168 = 64512 with 2 consumers); asking for more hangs
  /// the consumers' setmaxnreg.inc. One consumer (256 threads) has 255 registers
  /// without it, and skips it.
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static_assert(Consumers == 1 || 128 * (kProducerRegs + Consumers * kConsumerRegs) <=
                                      kThreads * (65536 / kThreads / 8 * 8),
                "ChainSm90: setmaxnreg asks for more registers than the CTA has (a hang)");

  __host__ __device__ static constexpr int mBlocks(int M) { return (M + BM - 1) / BM; }
  __host__ __device__ static constexpr int nBlocks(int NOut) { return (NOut + DV - 1) / DV; }
  /// Tiles (m-block, n-block), m-major: tile t is m-block t / nBlocks, n-block t % nBlocks.
  __host__ __device__ static constexpr int numTiles(int M, int NOut) {
    return mBlocks(M) * nBlocks(NOut);
  }

  /// The whole kernel body; every thread of the CTA calls it. CTA c runs tiles c,
  /// c + gridDim.x, ... `smem` is the dynamic shared memory (kSmemBytes). Uses named
  /// barriers 1..Consumers.
  template <class Act, class Epi>
  __device__ static void run(const TensorMap* mapA, const TensorMap* mapB1, const TensorMap* mapB2,
                             int B, int M, int H, int NOut, const Act& act, const Epi& epi,
                             void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 1023) & ~1023ull);
    uint64* bars = reinterpret_cast<uint64*>(base + kOffBars);
    // A, B1, B2 full: the producer's expect_tx; A, B1, B2 empty: each consumer warp.
    pipeline_start<Consumers>(bars, kAEmpty, kNumBars, mapA, mapB1, mapB2);
    if (threadIdx.x < 128) {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x == 0)
        produce(mapA, mapB1, mapB2, B, M, H, NOut, base, bars);
    } else {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_inc<kConsumerRegs>();
      consume(B, M, H, NOut, act, epi, base, bars);
    }
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
private:
  static constexpr int kOffB1 = kBytesA, kOffB2 = kBytesA + Stages * kBytesB1,
                       kOffBars = kBytesA + Stages * (kBytesB1 + kBytesB2);
  // mbarrier indices in `bars`.
  static constexpr int kAFull = 0, kB1Full = 1, kB2Full = 1 + Stages, kAEmpty = 1 + 2 * Stages,
                       kB1Empty = 2 + 2 * Stages, kB2Empty = 2 + 3 * Stages;
  using Ring = StageRing<Stages>;   // B1[j] / B2[j]: slot and phase
  using Turn = PingPong<Consumers>; // named barriers 1..Consumers

  /// S[j] = A B1[j] and O += P[j - 1] B2[j - 1] are in flight together, and the
  /// activation of S[j] runs under the latter, when O, S and P (DV / 2 + BN / 2 +
  /// BN / 4 registers) leave room for the rest: all but DV 256 with BN 128 (224;
  /// ptxas spilled there and serialized the wgmmas, C7512), which finishes P[j - 1]
  /// B2[j - 1] before it issues S[j], so that P and S are never live together.
  static constexpr bool kOverlap = DV / 2 + BN / 2 + BN / 4 <= 200;

  /// Hidden blocks of a tile (at least one: with H == 0 the single block is all
  /// past H, P = 0 and the output is epi(0)).
  __device__ static int hBlocks(int H) { return H > BN ? (H + BN - 1) / BN : 1; }

  /// One thread: per tile, A once it is free, then B1[j] and B2[j] into the ring
  /// (slot and phase run on across tiles, as in the consumers).
  __device__ static void produce(const TensorMap* mapA, const TensorMap* mapB1,
                                 const TensorMap* mapB2, int B, int M, int H, int NOut,
                                 uint8* base, uint64* bars) {
    const int per = numTiles(M, NOut), tiles = B * per, nb = nBlocks(NOut), hb = hBlocks(H);
    Ring ring;
    uint32 aPhase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, aPhase ^= 1) {
      const int b = tile / per, t = tile % per;
      const int m0 = t / nb * BM, n0 = t % nb * DV;
      mbarrier_wait(&bars[kAEmpty], aPhase ^ 1); // a fresh barrier passes parity 1 at once
      mbarrier_arrive_expect_tx(&bars[kAFull], kBytesA);
      tma_load_panels<DK / 64, BM>(base, mapA, &bars[kAFull], 0, m0, b);
      for (int j = 0; j < hb; ++j) {
        const int s = ring.slot;
        mbarrier_wait(&bars[kB1Empty + s], ring.phase ^ 1);
        mbarrier_arrive_expect_tx(&bars[kB1Full + s], kBytesB1);
        uint8* b1 = base + kOffB1 + s * kBytesB1;
        if constexpr (B1KMajor)
          tma_load_panels<DK / 64, BN>(b1, mapB1, &bars[kB1Full + s], 0, j * BN, b);
        else
          tma_load_panels<BN / 64, DK>(b1, mapB1, &bars[kB1Full + s], j * BN, 0, b);
        mbarrier_wait(&bars[kB2Empty + s], ring.phase ^ 1);
        mbarrier_arrive_expect_tx(&bars[kB2Full + s], kBytesB2);
        uint8* b2 = base + kOffB2 + s * kBytesB2;
        tma_load_panels<DV / 64, BN>(b2, mapB2, &bars[kB2Full + s], n0, j * BN, b);
        ring.advance();
      }
    }
  }

  /// S = A B1 for this warpgroup's 64 rows: DK / 16 wgmmas m64nBNk16.
  __device__ static __forceinline__ void issueS(float (&s)[BN / 2], uint32 a, uint32 b1) {
    if constexpr (B1KMajor) {
      wgmma_kmajor<BN, DK, BM, BN, TIn>(s, a, b1);
    } else {
      // MN-major: LBO = one panel of DK rows (the next 64 hidden columns).
      const uint64 descA = sm90::desc_sw128(a, 16, 1024);
      const uint64 descB = sm90::desc_sw128(b1, DK * 128, 1024);
#pragma unroll
      for (int kk = 0; kk < DK / 16; ++kk) {
        const uint64 offA = ((kk / 4) * BM * 128 + (kk % 4) * 32) >> 4;
        const uint64 offB = (kk * 16 * 128) >> 4; // 16 rows
        sm90::wgmma_m64k16<BN, 1, TIn>(s, descA + offA, descB + offB, kk > 0);
      }
    }
  }

  /// S = A B1 with no other wgmma in flight (block 0, and every block without kOverlap):
  /// issue it from B1's stage `slot` of the ring at b1 (the stage's address computed
  /// after the fence, as wgmma_rs_issue's), pass the turn on, wait for it.
  __device__ static __forceinline__ void issueSAlone(float (&s)[BN / 2], uint32 a, uint32 b1,
                                                     int slot, int w) {
    sm90::wgmma_fence();
    issueS(s, a, b1 + slot * kBytesB1);
    sm90::wgmma_commit();
    Turn::pass(w, false);
    sm90::wgmma_wait<0>();
    fence_operands(s);
  }

  /// x = act(s) for hidden block h0 (register 4 c + 2 h + e: row row0 + 8 h, hidden
  /// column h0 + 8 c + 2 (lane % 4) + e). Edge: the block may reach past H (only the
  /// last one does), where x = 0 without calling act. Into a separate array: written
  /// over s in place, ptxas copied S between the block's wgmmas and serialized them
  /// (C7514, relu).
  template <bool Edge, class Act>
  __device__ static __forceinline__ void activate(const float (&s)[BN / 2], float (&x)[BN / 2],
                                                  int h0, int H, int row0, const Act& act) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int c = 0; c < BN / 8; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int col = h0 + 8 * c + 2 * (lane % 4) + e;
          const int r = 4 * c + 2 * h + e;
          if (!Edge || col < H)
            x[r] = act(s[r], static_cast<int64>(row0 + 8 * h), static_cast<int64>(col));
          else
            x[r] = 0.f;
        }
  }
  template <class Act>
  __device__ static __forceinline__ void activateOf(const float (&s)[BN / 2], float (&x)[BN / 2],
                                                    int h0, int H, int row0, const Act& act) {
    if (h0 + BN > H)
      activate<true>(s, x, h0, H, row0, act);
    else
      activate<false>(s, x, h0, H, row0, act);
  }

  template <class Act, class Epi>
  __device__ static void consume(int B, int M, int H, int NOut, const Act& act, const Epi& epi,
                                 uint8* base, uint64* bars) {
    using namespace sm90;
    const int per = numTiles(M, NOut), tiles = B * per, nb = nBlocks(NOut), hb = hBlocks(H);
    const int w = threadIdx.x / 128 - 1, tid = threadIdx.x % 128;
    const int warp = tid / 32, lane = tid % 32;
    const bool leader = lane == 0; // arrives on the empty barriers for its warp
    const uint32 sA = smem_addr(base) + w * 64 * 128;
    const uint32 sB1 = smem_addr(base + kOffB1), sB2 = smem_addr(base + kOffB2);
    Turn::start(w);

    Ring ring; // B1[j] / B2[j] of this CTA's running block count
    uint32 aPhase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, aPhase ^= 1) {
      const int b = tile / per, t = tile % per;
      const int m0 = t / nb * BM, n0 = t % nb * DV;
      const bool lastTile = tile + static_cast<int>(gridDim.x) >= tiles;
      const int row0 = m0 + 64 * w + 16 * warp + lane / 4;
      float o[DV / 2];
      uint32 p[BN / 16][4];
#pragma unroll
      for (int i = 0; i < DV / 2; ++i)
        o[i] = 0.f;

      mbarrier_wait(&bars[kAFull], aPhase);
      // Block 0: S only. (S and its activation x are local to each block.)
      Turn::await(w);
      float s[BN / 2];
      mbarrier_wait(&bars[kB1Full + ring.slot], ring.phase);
      issueSAlone(s, sA, sB1, ring.slot, w);
      // The tile's last S: A is free.
      release_stage(leader, &bars[kB1Empty + ring.slot], hb == 1, &bars[kAEmpty]);
      float x[BN / 2];
      activateOf(s, x, 0, H, row0, act);
      pack_fragments<TIn>(x, p);

      Ring prev = ring;
      ring.advance();
      for (int j = 1; j < hb; ++j) {
        float s[BN / 2], x[BN / 2];
        if constexpr (kOverlap) {
          Turn::await(w);
          mbarrier_wait(&bars[kB1Full + ring.slot], ring.phase);
          fence_operands(o);
          fence_operands(p);
          wgmma_fence();
          issueS(s, sA, sB1 + ring.slot * kBytesB1);
          wgmma_commit();
          mbarrier_wait(&bars[kB2Full + prev.slot], prev.phase);
          wgmma_fence(); // after the wait's branch (else ptxas adds one, C7519)
          wgmma_rs_mnmajor<DV, BN, TIn>(o, p, sB2 + prev.slot * kBytesB2);
          wgmma_commit();
          Turn::pass(w, false);
          wgmma_wait<1>(); // S = A B1[j] is done
          fence_operands(s);
          release_stage(leader, &bars[kB1Empty + ring.slot], j == hb - 1, &bars[kAEmpty]);
          activateOf(s, x, j * BN, H, row0, act);
          wgmma_rs_retire(o, p, leader, &bars[kB2Empty + prev.slot]); // O += P B2[j - 1] is done
        } else {
          // P[j - 1] B2[j - 1] first, done before S[j] is issued: P and S are never
          // live together.
          Turn::await(w);
          mbarrier_wait(&bars[kB2Full + prev.slot], prev.phase);
          wgmma_rs_issue<DV, BN, TIn>(o, p, sB2, prev.slot);
          mbarrier_wait(&bars[kB1Full + ring.slot], ring.phase);
          wgmma_rs_retire(o, p, leader, &bars[kB2Empty + prev.slot]);
          issueSAlone(s, sA, sB1, ring.slot, w);
          fence_operands(o);
          release_stage(leader, &bars[kB1Empty + ring.slot], j == hb - 1, &bars[kAEmpty]);
          activateOf(s, x, j * BN, H, row0, act);
        }
        pack_fragments<TIn>(x, p);
        prev = ring;
        ring.advance();
      }
      // The last block's P B2.
      Turn::await(w);
      mbarrier_wait(&bars[kB2Full + prev.slot], prev.phase);
      wgmma_rs_issue<DV, BN, TIn>(o, p, sB2, prev.slot);
      Turn::pass(w, lastTile);
      wgmma_rs_retire(o, p, leader, &bars[kB2Empty + prev.slot]);

      const bool allCols = n0 + DV <= NOut;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * h;
        if (row >= M)
          continue;
#pragma unroll
        for (int c = 0; c < DV / 8; ++c) {
          const int col = n0 + 8 * c + 2 * (lane % 4);
          if (allCols || col < NOut)
            epi(static_cast<int64>(b), static_cast<int64>(row), static_cast<int64>(col),
                o[4 * c + 2 * h],
                o[4 * c + 2 * h + 1]);
        }
      }
    }
  }
#endif // __CUDA_ARCH__ >= 900
};

} // namespace helion::dev
