// helion/attention_sm90.cuh: flash-attention forward on TMA + wgmma (sm_90a).
//
//   out[b, i, :] = epi( sum_j p[i, j] v[b, j, :],  l[i] = sum_j p[i, j],  m[i] )
//   p[i, j] = exp(s[i, j] - m[i]),  s[i, j] = score(q[b, i, :] . k[b, j, :]),  m[i] = max_j s[i, j]
//
// The function of attention_sm80.cuh (same functors, same online softmax), with
// FlashAttention-3's structure. One CTA per (b, BM rows of q); 128 * (Consumers + 1)
// threads:
//
//   warpgroup 0 (producer, one thread works): TMA loads of the q tile (once) and
//     of BN-row k and v blocks into a ring of `Stages` slots; k[j] and v[j] have
//     their own `full` mbarrier (expect_tx) and `empty` mbarrier (one arrive per
//     consumer warp), so k[j + Stages] can load as soon as every S = Q K[j]^T is
//     done, before P V[j] is.
//   warpgroup 1 + w (consumer w): query rows [64 w, 64 w + 64) of the tile.
//
// Shared tiles are D / 64 panels of 128-byte rows (TMA's 128-byte swizzle, one
// box {1, rows, 64} of a 3-D map [b, seq, d] per panel: rows past seq of this
// batch read as zeros). Panel p of a `rows`-row tile starts at p * rows * 128.
//
// A consumer's block j, with the P V of block j - 1 in flight under the softmax
// of block j (FlashAttention-3's intra-warpgroup overlap):
//
//   wait K[j]   S = Q K[j]^T: wgmma m64nBNk16, A = Q and B = K both K-major
//               (desc_sw128(.., 16, 1024); k16 step = +32 bytes inside a panel,
//               the next panel after 4 steps); commit
//   wait V[j-1] O += P[j-1] V[j-1]: wgmma m64nDk16 with A = P from registers,
//               B = V MN-major (tnspB = 1, desc_sw128(v, BN * 128, 1024): LBO =
//               one panel, the next 64 head-dim columns; k16 step = 16 rows =
//               +2048 bytes); commit
//   wait<1>     S is done: release K[j]; online softmax of S in registers
//               (new max, alpha = exp(m_old - m_new), p = exp(s - m_new), l)
//   wait<0>     P V[j-1] is done: release V[j-1]; O *= alpha; P[j] = cvt(p)
//
// With two or three consumers they take turns issuing their wgmmas (named
// barriers 1 + w: consumer w waits for its turn, issues, passes the turn on):
// one's softmax runs while the tensor cores do the other's products ("ping-pong").
// With a causal mask each consumer reads the key blocks up to its own diagonal; in
// the tile's blocks past it (BM 192: the first consumer's last block in two tiles of
// three) it only keeps its turn and frees the stages once they are loaded.
//
// Register layouts (WgmmaAcc of gemm_sm90_pipeline.cuh): thread t of a consumer
// holds S[r] at row 16 (t / 32) + (t % 32) / 4 + 8 h, column 8 c + 2 (t % 4) + e
// for r = 4 c + 2 h + e; O likewise with D columns. The A fragment of a register
// wgmma is the mma.sync m16n8k16 A fragment per warp, so k16 block kk of P is
// {S[8 kk + 0, 1], S[8 kk + 2, 3], S[8 kk + 4, 5], S[8 kk + 6, 7]} as TIn pairs:
// columns 2 (t % 4) + {0, 1} and + 8 of rows (t % 32) / 4 and + 8. Example: t = 37,
// kk = 1: a0 = (S[8], S[9]) at row 16 + 1, columns 16 + 2, 16 + 3.
//
// Columns past N (last block) get s = -inf; exp runs as ex2.approx on
// (s - m) log2(e); a row whose scores are all -inf so far uses 0 as its max.
//
// Template parameters of AttentionSm90<...>:
//   TIn        bf16 or f16 (q, k, v)
//   D          head dim, 64 or 128
//   BN         keys per block: 64 or 128
//   Consumers  1, 2 or 3 consumer warpgroups: BM = 64 * Consumers rows of q
//   Stages     k/v ring depth, 2 to 4 (kSmemBytes <= 227 KB decides)
//
// Functors as attention_sm80.cuh: `float score(float x, int64 row, int64 col)` with
// `Score::kCausal`, and `epi(int64 b, int64
// row, int64 col, float o0, float o1, float l, float m)` per pair of adjacent
// head-dim columns of each row < M a thread owns (o unnormalized, l = sum p).
// With `Epi::kRowPointers` and `epi.dense()` (every such pair one aligned 2-element
// store) the kernel takes `p = epi.rowPtr(b, row)` once per row and calls
// `epi.pair(p, b, row, col, o0, o1, l, m)` instead (the same values and stores).
//
// Host: three tensor maps (helion::rt::makeTensorMap, Swizzle::b128) of q, k, v as
// {b, seq, d} (strides {batch, row, 1}, 16-byte multiples), boxes {1, kBoxRowsQ,
// 64} for q and {1, kBoxRowsKV, 64} for k and v; block kThreads, dynamic shared
// memory kSmemBytes (raise the limit), grid numTiles(M, B) CTAs (one tile each) or
// fewer (persistent: at most one CTA per SM, each looping over tiles). The kernel
// needs __launch_bounds__(kThreads, 1) (setmaxnreg) and its maps as
// `const __grid_constant__ hd::TensorMap`.
//
// Tile scheduling (persistent grids). Tile t is tileAt(t) (attention_tiles.cuh):
// b-major without a causal mask; with one, the batches in groups whose keys and
// values take about kL2GroupBytes together, each group's longest row blocks first,
// the row blocks shifted so that the ragged one is the first (rows before 0 are
// read as zeros by TMA and not stored). CTA c starts
// with tile c. Given a `counter` (an int that is 0 at launch, owned by the
// launch's stream: helion::rt::tileCounter), its producer thread takes the next
// tile with atomicAdd when it comes to the last key block of the current one,
// and hands it to the consumers in shared memory (a slot per tile parity, written
// before the last V block's expect_tx arrive, read after its wait): a CTA that
// finishes early takes more tiles (causal tiles differ up to mBlocks(M) times in
// length). Every CTA's atomics
// end with one that finds no tile; the one that draws the last value, tiles - 1,
// resets the counter to 0 for the next launch on the stream. Without a counter
// CTA c runs tiles c, c + gridDim.x, ...
#pragma once
#include "helion/async.cuh"
#include "helion/attention_sm90_ops.cuh"
#include "helion/attention_tiles.cuh"
#include "helion/gemm_sm90_epilogue.cuh" // epilogue_store_tma (the output through TMA)
#include "helion/gemm_sm90_pipeline.cuh"
#include "helion/types.cuh"
#include "helion/warpgroup_pipeline.cuh" // ring, ping-pong, fences, wgmma issue, TMA panels

namespace helion::dev {

/// sizeof(T), 0 for void (AttentionSm90's TOut).
template <class T> struct OutElemBytes { static constexpr int value = sizeof(T); };
template <> struct OutElemBytes<void> { static constexpr int value = 0; };

template <class TIn, int D, int BN = 128, int Consumers = 2, int Stages = 2, class TOut = void>
struct AttentionSm90 {
  static_assert(is_same_v<TIn, bf16> || is_same_v<TIn, f16>, "AttentionSm90: bf16 or f16");
  static_assert(D == 64 || D == 128, "AttentionSm90: head dim 64 or 128");
  static_assert(BN == 64 || BN == 128, "AttentionSm90: BN 64 or 128");
  static_assert(Consumers >= 1 && Consumers <= 3, "AttentionSm90: 1 to 3 consumer warpgroups");
  static_assert(Stages >= 2 && Stages <= 4, "AttentionSm90: 2 to 4 stages");

  static constexpr int kThreads = 128 * (Consumers + 1);
  static constexpr int BM = 64 * Consumers;
  static constexpr int kBytesQ = BM * D * 2, kBytesKV = BN * D * 2;
  static constexpr int kMaxSmem = 227 * 1024; ///< per CTA on sm_90
  /// 1024 bytes of alignment slack, Q, the K and V rings, the mbarriers (q full,
  /// q empty, then k full, v full, k empty, v empty per stage)
  /// and the next tile's index (two 4-byte slots).
  static constexpr int kBaseSmem = 1024 + kBytesQ + 2 * Stages * kBytesKV + 8 * (3 + 4 * Stages);
  /// The output's staging for TMA stores (TOut not void): each consumer's 64 x D tile
  /// of TOut, after the K and V rings, when TOut has 1, 2 or 4 bytes, a row fills whole
  /// 128-byte boxes and it fits beside the rest (else 0: the epilogue stores from
  /// registers). config::attentionSm90OutStagingBytes spells it for the launcher.
  static constexpr int kOutElem = OutElemBytes<TOut>::value;
  static constexpr int kBytesOut =
      (kOutElem == 1 || kOutElem == 2 || kOutElem == 4) && D * kOutElem >= 128 &&
              kBaseSmem + Consumers * 64 * D * kOutElem <= kMaxSmem
          ? Consumers * 64 * D * kOutElem
          : 0;
  static constexpr int kSmemBytes = kBaseSmem + kBytesOut;
  static_assert(kSmemBytes <= kMaxSmem, "AttentionSm90: over the 227 KB of shared memory of a CTA");
  static constexpr int kBoxRowsQ = BM, kBoxRowsKV = BN, kBoxCols = 64;
  /// setmaxnreg moves registers within what the CTA was launched with: kThreads x
  /// the launch-bound count (384 x 168 = 64512 with 2 consumers, 512 x 128 = 65536
  /// with 3). 128 x 24 + 256 x 240 = 64512; with 32 for the producer the consumers'
  /// setmaxnreg.inc waits forever (the kernel hung on the H100). At 24 ptxas spills
  /// 8-12 bytes of the producer's tile bookkeeping (one thread, local memory in L1).
  static constexpr int kProducerRegs = Consumers == 3 ? 32 : 24;
  static constexpr int kConsumerRegs = Consumers == 3 ? 160 : 240;
  static_assert(Consumers == 1 || 128 * (kProducerRegs + Consumers * kConsumerRegs) <=
                                      kThreads * (65536 / kThreads / 8 * 8),
                "AttentionSm90: setmaxnreg asks for more registers than the CTA has (a hang)");

  using Tiles = AttentionTiles<BM, BN>; // the schedule (attention_tiles.cuh)
  __host__ __device__ static constexpr int mBlocks(int M) { return Tiles::mBlocks(M); }
  __host__ __device__ static constexpr int numTiles(int M, int B) { return Tiles::numTiles(M, B); }
  template <class Score>
  __device__ static void tileAt(int t, int M, int N, int B, int& b, int& m0) {
    Tiles::template tileAt<Score::kCausal>(t, D, M, N, B, b, m0);
  }
  template <class Score> __device__ static int keyBlocks(int m0, int N) {
    return Tiles::template keyBlocks<Score::kCausal>(m0, N);
  }
  template <class Score> __device__ static int consumerBlocks(int rowLo, int M, int nBlocks) {
    return Tiles::template consumerBlocks<Score::kCausal>(rowLo, M, nBlocks);
  }

  /// The whole kernel body; every thread of the CTA calls it. CTA c runs tile c,
  /// then (persistent grids, fewer CTAs than tiles) the tiles the schedule above
  /// gives it; the producer loads the next tile's Q and first K / V blocks while
  /// the consumers finish this one. `counter`: the stream's tile counter, or null
  /// (static schedule; required null when gridDim.x > tiles). `smem` is the dynamic
  /// shared memory (kSmemBytes). `mapO`: the output as a 3-D map {b, seq, d} of TOut
  /// (box {1, 64, 128 bytes}, 128-byte swizzle) when kBytesOut > 0 and the epilogue's
  /// one store is a dense [b, row, col] (Epi::kRowPointers), else null. Uses named
  /// barriers 1..Consumers (and Consumers + 1..2 Consumers with mapO).
  template <class Score, class Epi>
  __device__ static void run(const TensorMap* mapQ, const TensorMap* mapK, const TensorMap* mapV,
                             int M, int N, int B, const Score& score, const Epi& epi, void* smem,
                             int* counter = nullptr, const TensorMap* mapO = nullptr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 1023) & ~1023ull);
    uint64* bars = reinterpret_cast<uint64*>(base + kOffOut + kBytesOut);
    // q full, k full, v full: the producer's expect_tx; q, k, v empty: each consumer warp.
    pipeline_start<Consumers>(bars, kQEmpty, kNumBars, mapQ, mapK, mapV);
    if (threadIdx.x < 128) {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x == 0)
        produce<Score>(mapQ, mapK, mapV, M, N, B, base, bars, counter);
    } else {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_inc<kConsumerRegs>();
      // A linear score with f > 0 (finite) runs the folded softmax (see softmax); the
      // choice is made once, so the running loop holds one form only.
      if constexpr (Score::kLinear) {
        const float f = score.factor();
        if (f > 0.f && f < __int_as_float(0x7f800000)) {
          consume<true>(M, N, B, score, epi, base, bars, f, mapO);
          return;
        }
      }
      consume<false>(M, N, B, score, epi, base, bars, 1.f, mapO);
    }
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
private:
  // Shared layout: Q at 0, K slot s at kOffK + s kBytesKV, V slot s at kOffV + ...
  static constexpr int kOffK = kBytesQ, kOffV = kBytesQ + Stages * kBytesKV,
                       kOffOut = kBytesQ + 2 * Stages * kBytesKV;
  // mbarrier indices in `bars`.
  static constexpr int kQFull = 0, kKFull = 1, kVFull = 1 + Stages, kQEmpty = 1 + 2 * Stages,
                       kKEmpty = 2 + 2 * Stages, kVEmpty = 2 + 3 * Stages,
                       kNumBars = 2 + 4 * Stages;
  using Ring = StageRing<Stages>;   // K[j] / V[j]: slot and phase
  using Turn = PingPong<Consumers>; // named barriers 1..Consumers
  /// The 8 bytes after the barriers: for the tiles of parity p (a CTA's first,
  /// third, ... or second, fourth, ...) the index of the tile after it (tiles:
  /// none). A slot is written again two tiles later, once every consumer has
  /// passed the Q of the tile between.
  __device__ static volatile int* nextSlot(uint64* bars, uint32 parity) {
    return reinterpret_cast<volatile int*>(bars + kNumBars) + parity;
  }

  /// The tile after `tile` for this CTA (tiles when there is none).
  __device__ static int fetchNext(int tile, int tiles, int* counter) {
    if (tile >= tiles)
      return tiles;
    if (counter == nullptr || static_cast<int>(gridDim.x) > tiles)
      return min(tile + static_cast<int>(gridDim.x), tiles);
    const int v = atomicAdd(counter, 1);
    if (v == tiles - 1)
      atomicExch(counter, 0); // every other CTA has drawn its last value
    return min(v + static_cast<int>(gridDim.x), tiles);
  }

  /// One thread: per tile, Q once it is free, then K[j] and V[j] into the ring
  /// (slot and phase run on across tiles, as in the consumers). At the last key
  /// block it takes the next tile and publishes it with that block's V. Slot and
  /// phase are two variables here, not a Ring: as one, ptxas assigned the producer's
  /// registers otherwise (same work, other SASS).
  template <class Score>
  __device__ static void produce(const TensorMap* mapQ, const TensorMap* mapK,
                                 const TensorMap* mapV, int M, int N, int B, uint8* base,
                                 uint64* bars, int* counter) {
    const int tiles = numTiles(M, B);
    int s = 0;
    uint32 phase = 0, qPhase = 0;
    for (int tile = blockIdx.x; tile < tiles; qPhase ^= 1) {
      int b, m0;
      tileAt<Score>(tile, M, N, B, b, m0);
      const int nBlocks = keyBlocks<Score>(m0, N);
      mbarrier_wait(&bars[kQEmpty], qPhase ^ 1); // a fresh barrier passes parity 1 at once
      mbarrier_arrive_expect_tx(&bars[kQFull], kBytesQ);
      tma_load_panels<D / 64, BM>(base, mapQ, &bars[kQFull], 0, m0, b);
      int next = tiles;
      for (int j = 0; j < nBlocks; ++j) {
        if (j == nBlocks - 1)
          next = fetchNext(tile, tiles, counter); // its latency under the waits below
        mbarrier_wait(&bars[kKEmpty + s], phase ^ 1);
        mbarrier_arrive_expect_tx(&bars[kKFull + s], kBytesKV);
        tma_load_panels<D / 64, BN>(base + kOffK + s * kBytesKV, mapK, &bars[kKFull + s], 0,
                                    j * BN, b);
        mbarrier_wait(&bars[kVEmpty + s], phase ^ 1);
        if (j == nBlocks - 1)
          *nextSlot(bars, qPhase) = next; // released by the arrive below
        mbarrier_arrive_expect_tx(&bars[kVFull + s], kBytesKV);
        tma_load_panels<D / 64, BN>(base + kOffV + s * kBytesKV, mapV, &bars[kVFull + s], 0,
                                    j * BN, b);
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
      tile = next;
    }
  }

  /// Online softmax of block n0 in place (s becomes p); alpha[h] rescales row h's
  /// old sum (done here) and its O (by the caller, once P V[j - 1] is done).
  /// Edge: the block may reach past N (only the last one does; the others skip
  /// the column test, 64 selects per thread and block at BN 128).
  /// Masked: the score as given; else a causal score's unmasked form (score.unmasked,
  /// the same without its where(row >= col, ..., -inf)), for key blocks wholly at or
  /// below the diagonal of every row of the warpgroup.
  /// Fold (a score x * f, Score::kLinear, with f = score.factor() > 0 and finite): the
  /// max is taken over the raw products x (f max x = max f x, rounding being monotone)
  /// and p = 2^(x f log2(e) - m log2(e)) is one FFMA, so no product by f per element;
  /// rowMax stays in the score's units (the lse and alpha read it).
  template <bool Edge, bool Masked, bool Fold = false, class Score>
  __device__ static __forceinline__ void softmax(float (&s)[BN / 2], float (&rowMax)[2],
                                                 float (&rowSum)[2], float (&alpha)[2], int n0,
                                                 int N, int row0, const Score& score,
                                                 float f = 1.f) {
    constexpr float kLog2e = 1.4426950408889634f;
    const float kNegInf = -__int_as_float(0x7f800000);
    const int lane = threadIdx.x % 32;
    const bool edge = Edge && n0 + BN > N;
    const float fLog2e = f * kLog2e; // Fold only
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // The running max in the units of x: raw products under Fold.
      float mx = Fold ? kNegInf : rowMax[h];
#pragma unroll
      for (int c = 0; c < BN / 8; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int col = n0 + 8 * c + 2 * (lane % 4) + e;
          float x;
          if constexpr (Fold && Masked && Score::kCausal)
            x = 8 * c + e <= row0 + 8 * h - n0 - 2 * (lane % 4) ? s[4 * c + 2 * h + e] : kNegInf;
          else if constexpr (Fold)
            x = s[4 * c + 2 * h + e];
          else if constexpr (Masked && Score::kCausal)
            // The causal score is where(row >= col, unmasked, -inf): row0 + 8 h >= col is
            // 8 c + e <= diag, one compare of a constant per element.
            x = 8 * c + e <= row0 + 8 * h - n0 - 2 * (lane % 4)
                    ? score.unmasked(s[4 * c + 2 * h + e], static_cast<int64>(row0 + 8 * h),
                                     static_cast<int64>(col))
                    : kNegInf;
          else if constexpr (Masked)
            x = score(s[4 * c + 2 * h + e], static_cast<int64>(row0 + 8 * h), static_cast<int64>(col));
          else
            x = score.unmasked(s[4 * c + 2 * h + e], static_cast<int64>(row0 + 8 * h),
                               static_cast<int64>(col));
          if (edge && col >= N)
            x = kNegInf;
          s[4 * c + 2 * h + e] = x;
          mx = fmaxf(mx, x);
        }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      if constexpr (Fold)
        mx = fmaxf(rowMax[h], mx * f); // -inf * f = -inf
      const float ms = mx == kNegInf ? 0.f : mx * kLog2e;
      alpha[h] = ex2_approx(rowMax[h] * kLog2e - ms);
      rowMax[h] = mx;
      float sum = 0.f;
#pragma unroll
      for (int c = 0; c < BN / 8; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = ex2_approx(__fmaf_rn(s[4 * c + 2 * h + e], Fold ? fLog2e : kLog2e, -ms));
          s[4 * c + 2 * h + e] = p;
          sum += p;
        }
      rowSum[h] = rowSum[h] * alpha[h] + sum;
    }
  }

  /// O *= alpha (row h: registers 4 c + 2 h + {0, 1}); P = p as TIn pairs.
  __device__ static __forceinline__ void rescaleAndPack(float (&o)[D / 2], const float (&alpha)[2],
                                                        const float (&s)[BN / 2],
                                                        uint32 (&p)[BN / 16][4]) {
#pragma unroll
    for (int c = 0; c < D / 8; ++c)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        o[4 * c + r] *= alpha[r / 2];
    pack_fragments<TIn>(s, p);
  }

  /// The softmax of block n0: the column test only where the block reaches past N.
  /// row0: the query row of this thread's h = 0 registers (h = 1: row0 + 8); rowLo:
  /// the warpgroup's first row (a causal mask is skipped, uniformly, on key blocks that
  /// end at or before it: 2 of every 3 blocks of a row block at BM 128 and BN 128).
  /// Fold: the folded forms (softmax) with factor f, except in the edge block.
  template <bool Fold, class Score>
  __device__ static __forceinline__ void softmaxOf(float (&s)[BN / 2], float (&rowMax)[2],
                                                   float (&rowSum)[2], float (&alpha)[2], int n0,
                                                   int N, int row0, int rowLo, const Score& score,
                                                   float f) {
    if (n0 + BN > N) {
      softmax<true, true>(s, rowMax, rowSum, alpha, n0, N, row0, score);
      return;
    }
    if constexpr (Score::kCausal)
      if (n0 + BN - 1 <= rowLo) {
        softmax<false, false, Fold>(s, rowMax, rowSum, alpha, n0, N, row0, score, f);
        return;
      }
    softmax<false, true, Fold>(s, rowMax, rowSum, alpha, n0, N, row0, score, f);
  }

  /// epilogue_store_tma's transform: the epilogue's value of o at (row, col) of this
  /// thread's two rows (rowT and rowT + 8), as the pairs would store it.
  template <class Epi> struct OutValue {
    const Epi& epi;
    int b, rowT;
    float l0, l1, m0, m1;
    __device__ __forceinline__ float transform(int64 row, int64 col, float v) const {
      const bool h = row != rowT;
      return epi.value(static_cast<int64>(b), row, col, v, h ? l1 : l0, h ? m1 : m0);
    }
  };

  template <bool Fold, class Score, class Epi>
  __device__ static void consume(int M, int N, int B, const Score& score, const Epi& epi,
                                 uint8* base, uint64* bars, float f, const TensorMap* mapO) {
    const int tiles = numTiles(M, B);
    using namespace sm90;
    const int w = threadIdx.x / 128 - 1, tid = threadIdx.x % 128;
    const bool leader = tid % 32 == 0; // arrives on the empty barriers for its warp
    const uint32 sQ = smem_addr(base) + w * 64 * 128;
    const uint32 sK = smem_addr(base + kOffK), sV = smem_addr(base + kOffV);
    const float kNegInf = -__int_as_float(0x7f800000);
    Turn::start(w);

    Ring ring; // K[j] / V[j] of this CTA's running block count
    uint32 qPhase = 0;
    bool dense = false; // the epilogue's pairs are aligned 2-element stores (Epi::dense)
    if constexpr (Epi::kRowPointers)
      dense = epi.dense();
    const bool tmaOut = kBytesOut > 0 && mapO != nullptr;
    for (int tile = blockIdx.x; tile < tiles; qPhase ^= 1) {
      int b, m0;
      tileAt<Score>(tile, M, N, B, b, m0);
      const int nBlocks = keyBlocks<Score>(m0, N);
      const int warp = tid / 32, lane = tid % 32;
      const int rowLo = m0 + 64 * w, row0 = rowLo + 16 * warp + lane / 4;
      const int nMine = consumerBlocks<Score>(rowLo, M, nBlocks);
      float o[D / 2], s[BN / 2], rowMax[2] = {kNegInf, kNegInf}, rowSum[2] = {0.f, 0.f}, alpha[2];
      uint32 p[BN / 16][4];
#pragma unroll
      for (int i = 0; i < D / 2; ++i)
        o[i] = 0.f;

      mbarrier_wait(&bars[kQFull], qPhase);
      // Block 0: S only.
      Turn::await(w);
      mbarrier_wait(&bars[kKFull + ring.slot], ring.phase);
      wgmma_fence();
      wgmma_kmajor<BN, D, BM, BN, TIn>(s, sQ, sK + ring.slot * kBytesKV);
      wgmma_commit();
      Turn::pass(w, false);
      wgmma_wait<0>();
      fence_operands(s);
      // The tile's last S: Q is free.
      release_stage(leader, &bars[kKEmpty + ring.slot], nMine == 1, &bars[kQEmpty]);
      softmaxOf<Fold>(s, rowMax, rowSum, alpha, 0, N, row0, rowLo, score, f);
      rescaleAndPack(o, alpha, s, p);

      Ring prev = ring;
      ring.advance();
      for (int j = 1; j < nMine; ++j) {
        Turn::await(w);
        mbarrier_wait(&bars[kKFull + ring.slot], ring.phase);
        fence_operands(o);
        fence_operands(p);
        wgmma_fence();
        wgmma_kmajor<BN, D, BM, BN, TIn>(s, sQ, sK + ring.slot * kBytesKV);
        wgmma_commit();
        mbarrier_wait(&bars[kVFull + prev.slot], prev.phase);
        wgmma_fence(); // after the wait's branch (else ptxas adds one, C7519)
        wgmma_rs_mnmajor<D, BN, TIn>(o, p, sV + prev.slot * kBytesKV);
        wgmma_commit();
        Turn::pass(w, false);
        wgmma_wait<1>(); // S = Q K[j]^T is done
        fence_operands(s);
        release_stage(leader, &bars[kKEmpty + ring.slot], j == nMine - 1, &bars[kQEmpty]);
        softmaxOf<Fold>(s, rowMax, rowSum, alpha, j * BN, N, row0, rowLo, score, f);
        wgmma_rs_retire(o, p, leader, &bars[kVEmpty + prev.slot]); // O += P V[j - 1] is done
        rescaleAndPack(o, alpha, s, p);
        prev = ring;
        ring.advance();
      }
      // The last block's P V.
      Turn::await(w);
      mbarrier_wait(&bars[kVFull + prev.slot], prev.phase);
      // The next tile is written before the arrive of the tile's last V. Passed through
      // a shuffle so that ptxas sees one value per warp: with a plain shared load it
      // keeps the loop's addresses out of uniform registers (non-causal d 128: 6 %
      // slower, SASS).
      int next = tiles;
      if (nMine == nBlocks)
        next = __shfl_sync(0xffffffffu, *nextSlot(bars, qPhase), 0);
      wgmma_rs_issue<D, BN, TIn>(o, p, sV, prev.slot);
      Turn::pass(w, nMine == nBlocks && next >= tiles);
      wgmma_rs_retire(o, p, leader, &bars[kVEmpty + prev.slot]);
      // Blocks past this consumer's diagonal: a turn each (the turns stay in step),
      // in which it frees the stages once they are loaded (an arrive before the full
      // wait could count toward the slot's previous use).
      for (int j = nMine; j < nBlocks; ++j) {
        Turn::await(w);
        mbarrier_wait(&bars[kKFull + ring.slot], ring.phase);
        release_stage(leader, &bars[kKEmpty + ring.slot], false, &bars[kQEmpty]);
        mbarrier_wait(&bars[kVFull + ring.slot], ring.phase);
        release_stage(leader, &bars[kVEmpty + ring.slot], false, &bars[kQEmpty]);
        if (j == nBlocks - 1)
          next = __shfl_sync(0xffffffffu, *nextSlot(bars, qPhase), 0);
        Turn::pass(w, j == nBlocks - 1 && next >= tiles);
        ring.advance();
      }

      float lRow[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        lRow[h] = rowSum[h];
        lRow[h] += __shfl_xor_sync(0xffffffffu, lRow[h], 1);
        lRow[h] += __shfl_xor_sync(0xffffffffu, lRow[h], 2);
      }
      if constexpr (kBytesOut > 0)
        if (tmaOut) {
          // The consumer's 64 rows through shared memory, one TMA store per 64-column
          // box (rows past M clipped by the map; a consumer without rows stores none).
          if (rowLo < M && rowLo + 64 > 0)
            sm90::epilogue_store_tma<TOut, 1, D, 64, 1, true, 1 + Consumers>(
                o, rowLo, 0, D, tid, w, mapO, base + kOffOut,
                OutValue<Epi>{epi, b, row0, lRow[0], lRow[1], rowMax[0], rowMax[1]}, b);
          if constexpr (Epi::kRowStores)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int row = row0 + 8 * h;
              if (lane % 4 == 0 && row >= 0 && row < M)
                epi.rows(static_cast<int64>(b), static_cast<int64>(row), lRow[h], rowMax[h]);
            }
          tile = next;
          continue;
        }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float l = lRow[h];
        const int row = row0 + 8 * h;
        if (row < 0 || row >= M) // rows of a shifted causal row block before row 0
          continue;
        if constexpr (Epi::kRowPointers)
          if (dense) { // the row's address once, its pairs at constant offsets
            auto* ptr = epi.rowPtr(static_cast<int64>(b), static_cast<int64>(row));
#pragma unroll
            for (int c = 0; c < D / 8; ++c)
              epi.pair(ptr, static_cast<int64>(b), static_cast<int64>(row),
                       static_cast<int64>(8 * c + 2 * (lane % 4)), o[4 * c + 2 * h],
                       o[4 * c + 2 * h + 1], l, rowMax[h]);
            continue;
          }
#pragma unroll
        for (int c = 0; c < D / 8; ++c)
          epi(static_cast<int64>(b), static_cast<int64>(row),
              static_cast<int64>(8 * c + 2 * (lane % 4)), o[4 * c + 2 * h], o[4 * c + 2 * h + 1], l,
              rowMax[h]);
      }
      tile = next;
    }
    if constexpr (kBytesOut > 0)
      if (tmaOut && tid == 0)
        tma_store_wait<0>(); // the last boxes have read shared memory
  }
#endif // __CUDA_ARCH__ >= 900
};

} // namespace helion::dev
