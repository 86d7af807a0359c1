// helion/warpgroup_pipeline.cuh: the pieces of a warp-specialized sm_90a kernel
// that attention_sm90.cuh and chain_sm90.cuh share: one producer thread filling
// rings of shared-memory stages with TMA, and consumer warpgroups that take turns
// issuing their wgmmas, the second product's A operand (P) in registers.
//
//   pipeline_start<C>(bars, numFull, numBars, map0, map1, map2)
//                         thread 0 initializes the mbarriers (full: one arrival;
//                         empty: one per consumer warp), thread 32 prefetches the
//                         tensor maps, then the CTA syncs
//   StageRing<Stages>     slot and mbarrier parity of a ring of Stages stages
//   tma_load_panels<Panels, Rows>(dst, map, bar, col, row[, b])
//                         a tile as Panels panels of Rows 128-byte rows (64
//                         columns, TMA's 128-byte swizzle), one box each
//   PingPong<C, First>    named barriers First .. First + C - 1 (default 1): consumer
//                         w issues only in its turn
//   fence_operands(r)     keeps the compiler from moving a register array (an
//                         accumulator, or the A fragments of a register wgmma)
//                         across a wgmma fence or wait
//   wgmma_kmajor<N, K, RowsA, RowsB, T>(d, a, b)
//                         d = A B, A and B K-major in shared memory: K / 16 wgmmas
//   wgmma_rs_mnmajor<N, K, T>(d, a, b)
//                         d += A B, A from registers, B MN-major: K / 16 wgmmas
//   wgmma_rs_issue<N, K, T>(d, a, ring, slot) / wgmma_rs_retire(d, a, leader, empty)
//                         that register-A group on its own, with its fences: issue
//                         and commit; wait for it and release B's stage
//   pack_fragments<T>(s, a)
//                         an accumulator as the A fragments of the next product
//   release_stage(leader, empty, last, tileEmpty)
//                         each warp's leader lane frees a stage (and the tile that
//                         stays resident across stages, after its last use)
//
// Why: the two kernels run one pipeline (FlashAttention-3's producer / consumer
// split, ping-pong between consumers, S[j] in flight with P[j-1] V[j-1]) around
// different math between the products (an online softmax; an elementwise
// activation). The mbarrier protocol, the descriptor arithmetic and the register
// fences must stay alike in both, so they live here once; each kernel keeps its
// tile schedule and the order of its steps. Moving code here must not change the
// kernels' SASS, and ptxas's register assignment follows the order of the PTX: the
// helpers keep the statement order of the code they replaced (wgmma_rs_issue takes
// B as ring + slot so that its address is computed after the fences, as before),
// and attention_sm90.cuh's producer keeps its own slot and phase variables (as a
// StageRing they came out in the other order and moved registers).
//
// Shared layouts as in gemm_sm90_pipeline.cuh: a tile is 64-column panels of
// 128-byte rows, 1024-byte aligned, panel p of a `rows`-row tile at p * rows * 128;
// the k16 step kk of a K-major operand is 32 (kk % 4) bytes into panel kk / 4, of
// an MN-major one 16 rows (2048 bytes) further, LBO = one panel. Registers: WgmmaAcc.
//
// Example: a consumer's block j with S = Q K[j]^T and O += P V[j - 1] in flight
// together (attention_sm90.cuh; Q of BM rows, K and V stages of BN rows, head dim D):
//
//   PingPong<Consumers>::await(w);
//   mbarrier_wait(&bars[kKFull + ring.slot], ring.phase);
//   fence_operands(o);
//   fence_operands(p);
//   sm90::wgmma_fence();
//   wgmma_kmajor<BN, D, BM, BN, TIn>(s, sQ, sK + ring.slot * kBytesKV); // S = Q K^T
//   sm90::wgmma_commit();
//   mbarrier_wait(&bars[kVFull + prev.slot], prev.phase);
//   sm90::wgmma_fence();
//   wgmma_rs_mnmajor<D, BN, TIn>(o, p, sV + prev.slot * kBytesKV); // O += P V
//   sm90::wgmma_commit();
//   PingPong<Consumers>::pass(w, false);
//   sm90::wgmma_wait<1>(); // S is done
//   fence_operands(s);
//   release_stage(leader, &bars[kKEmpty + ring.slot], j == nBlocks - 1, &bars[kQEmpty]);
//   ... softmax of s ...
//   wgmma_rs_retire(o, p, leader, &bars[kVEmpty + prev.slot]); // P V is done
//   pack_fragments<TIn>(s, p);
#pragma once
#include "helion/async.cuh"
#include "helion/attention_sm90_ops.cuh"
#include "helion/gemm_sm90_pipeline.cuh"
#include "helion/math.cuh" // pack2_rn
#include "helion/types.cuh"

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/// The start of a producer / consumer kernel, every thread of the CTA: thread 0
/// initializes bars[0 .. numFull) for one arrival (the producer's expect_tx) and
/// bars[numFull .. numBars) for one per consumer warp (the empty barriers),
/// thread 32 prefetches the tensor maps; then __syncthreads.
template <int Consumers>
__device__ __forceinline__ void pipeline_start(uint64* bars, int numFull, int numBars,
                                               const TensorMap* map0, const TensorMap* map1,
                                               const TensorMap* map2) {
  if (threadIdx.x == 0) {
    for (int i = 0; i < numFull; ++i)
      mbarrier_init(&bars[i], 1);
    for (int i = numFull; i < numBars; ++i)
      mbarrier_init(&bars[i], 4 * Consumers);
    fence_mbarrier_init();
  } else if (threadIdx.x == 32) {
    prefetch_tensormap(map0);
    prefetch_tensormap(map1);
    prefetch_tensormap(map2);
  }
  __syncthreads();
}

/// Ring position: slot of Stages, parity `phase` of its barriers' current use. The
/// producer waits on a slot's empty barrier with phase ^ 1 (a fresh barrier passes
/// parity 1 at once), the consumers on its full barrier with phase; both advance
/// once per block and run on across tiles.
template <int Stages> struct StageRing {
  int slot = 0;
  uint32 phase = 0;
  __device__ __forceinline__ void advance() {
    if (++slot == Stages) {
      slot = 0;
      phase ^= 1;
    }
  }
};

/// Panels TMA boxes of 64 columns x Rows rows into dst (1024-byte aligned), panel p
/// at dst + p Rows 128 from columns col + 64 p, rows row.. (2-D map); completes on
/// bar (whose expect_tx the caller has armed with all the panels' bytes).
template <int Panels, int Rows>
__device__ __forceinline__ void tma_load_panels(uint8* dst, const TensorMap* map, uint64* bar,
                                                int col, int row) {
#pragma unroll
  for (int p = 0; p < Panels; ++p)
    tma_load_2d(dst + p * Rows * 128, map, bar, col + 64 * p, row);
}
/// The same from a 3-D map ({col, row, b}, innermost first).
template <int Panels, int Rows>
__device__ __forceinline__ void tma_load_panels(uint8* dst, const TensorMap* map, uint64* bar,
                                                int col, int row, int b) {
#pragma unroll
  for (int p = 0; p < Panels; ++p)
    tma_load_3d(dst + p * Rows * 128, map, bar, col + 64 * p, row, b);
}

/// Ping-pong between consumer warpgroups: consumer w issues its wgmmas only in its
/// turn (named barrier First + w, 128 threads waiting + the previous consumer's 128
/// arriving) and then passes the turn on, so one's softmax or activation runs while
/// the tensor cores do the other's products. The last consumer passes consumer 0
/// its first turn up front (start) and so skips its final pass: every barrier sees
/// as many arrivals as waits. One consumer: no barriers.
template <int Consumers, int First = 1> struct PingPong {
  __device__ static __forceinline__ void start(int w) {
    if constexpr (Consumers > 1)
      if (w == Consumers - 1)
        sm90::named_barrier_arrive(First, 256); // consumer 0 goes first
  }
  __device__ static __forceinline__ void await(int w) {
    if constexpr (Consumers > 1)
      sm90::named_barrier_sync(First + w, 256);
  }
  __device__ static __forceinline__ void pass(int w, bool final) {
    if constexpr (Consumers > 1)
      if (!(final && w == Consumers - 1))
        sm90::named_barrier_arrive(First + (w + 1) % Consumers, 256);
  }
};

/// Register fences of a whole array (sm90::fence_operand on each element): before
/// a wgmma_fence for the operands it reads and writes, after a wgmma_wait for
/// what it wrote.
template <int R> __device__ __forceinline__ void fence_operands(float (&r)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    sm90::fence_operand(r[i]);
}
/// The A fragments of a register wgmma, K16 k16 blocks of four registers.
template <int K16> __device__ __forceinline__ void fence_operands(uint32 (&a)[K16][4]) {
#pragma unroll
  for (int kk = 0; kk < K16; ++kk)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      sm90::fence_operand(a[kk][i]);
}

/// d[64 x N] = A[64 x K] B[K x N] for one warpgroup, both K-major in shared memory:
/// A as K / 64 panels of RowsA rows (a: this warpgroup's first row in panel 0), B
/// stored transposed as K / 64 panels of RowsB rows (b: its first row). K / 16
/// wgmmas m64nNk16, the first overwriting d.
template <int N, int K, int RowsA, int RowsB, class T>
__device__ __forceinline__ void wgmma_kmajor(float (&d)[N / 2], uint32 a, uint32 b) {
  const uint64 descA = sm90::desc_sw128(a, 16, 1024), descB = sm90::desc_sw128(b, 16, 1024);
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) {
    // k16 step kk: 32 bytes into the 128-byte rows of panel kk / 4.
    const uint64 offA = ((kk / 4) * RowsA * 128 + (kk % 4) * 32) >> 4;
    const uint64 offB = ((kk / 4) * RowsB * 128 + (kk % 4) * 32) >> 4;
    sm90::wgmma_m64k16<N, 0, T>(d, descA + offA, descB + offB, kk > 0);
  }
}

/// d[64 x N] += A[64 x K] B[K x N]: A from registers (k16 block kk: a[kk], the
/// m16n8k16 A fragment of each warp), B MN-major in shared memory (N / 64 panels of
/// K rows at b: LBO = one panel, k16 step = 16 rows = +2048 bytes): K / 16 wgmmas.
template <int N, int K, class T>
__device__ __forceinline__ void wgmma_rs_mnmajor(float (&d)[N / 2], const uint32 (&a)[K / 16][4],
                                                 uint32 b) {
  const uint64 descB = sm90::desc_sw128(b, K * 128, 1024);
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk)
    sm90::wgmma_m64k16_rs<N, T>(d, a[kk], descB + ((kk * 16 * 128) >> 4), 1);
}

/// The register-A group on its own (after the wait on B's full barrier): fences d and
/// a, issues d += A B (wgmma_rs_mnmajor) with B the stage `slot` of a ring of K x N
/// stages at `ring` (K N 2 bytes each), and commits it.
template <int N, int K, class T>
__device__ __forceinline__ void wgmma_rs_issue(float (&d)[N / 2], uint32 (&a)[K / 16][4],
                                               uint32 ring, int slot) {
  fence_operands(d);
  fence_operands(a);
  sm90::wgmma_fence();
  wgmma_rs_mnmajor<N, K, T>(d, a, ring + slot * (K * N * 2));
  sm90::wgmma_commit();
}

/// Waits for every wgmma group of this warpgroup (the register-A one last), fences
/// its accumulator d and A fragments a, and releases B's stage (release_stage).
template <int R, int K16>
__device__ __forceinline__ void wgmma_rs_retire(float (&d)[R], uint32 (&a)[K16][4], bool leader,
                                                uint64* empty) {
  sm90::wgmma_wait<0>();
  fence_operands(d);
  fence_operands(a);
  if (leader)
    mbarrier_arrive(empty);
}

/// An accumulator of K columns (R = K / 2 registers) as the A fragments of the next
/// register wgmma, T pairs rounded to nearest: k16 block kk is s[8 kk .. 8 kk + 7]
/// (WgmmaAcc registers 4 c + 2 h + e with c = 2 kk, 2 kk + 1: the m16n8k16 A fragment).
template <class T, int R, int K16>
__device__ __forceinline__ void pack_fragments(const float (&s)[R], uint32 (&a)[K16][4]) {
  static_assert(R == 8 * K16, "pack_fragments: 8 accumulator registers per k16 block");
#pragma unroll
  for (int kk = 0; kk < K16; ++kk)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      a[kk][i] = pack2_rn<T>(s[8 * kk + 2 * i], s[8 * kk + 2 * i + 1]);
}

/// The wgmmas that read a stage are done: each warp's leader lane arrives on its
/// `empty` barrier (initialized for one arrival per consumer warp), and on
/// `tileEmpty` too where this was the last use of the tile resident across stages.
__device__ __forceinline__ void release_stage(bool leader, uint64* empty, bool last,
                                              uint64* tileEmpty) {
  if (leader) {
    mbarrier_arrive(empty);
    if (last)
      mbarrier_arrive(tileEmpty);
  }
}

#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
