// helion/warpgroup_pipeline.cuh: the pieces of a warp-specialized sm_90a kernel
// that attention_sm90.cuh and chain_sm90.cuh share: one producer thread filling
// a ring of shared-memory stages with TMA, and consumer warpgroups that take turns
// issuing their wgmmas, with the second product's A operand in registers.
//
//   pipeline_start<C>(bars, numFull, numBars, m0, m1, m2)
//                         thread 0 initializes the mbarriers, thread 32 prefetches
//                         the three tensor maps, then the CTA syncs
//   warp_specialize<C, ProducerRegs, ConsumerRegs>(produce, consume)
//                         warpgroup 0 gives registers up and its thread 0 produces;
//                         warpgroups 1 .. C take them and consume
//   StageRing<Stages>     slot and mbarrier parity of a ring of Stages stages
//   tma_load_panels<Panels, Rows>(dst, map, bar, col, row[, b])
//                         a tile as Panels panels of Rows 128-byte rows (64
//                         columns, TMA's 128-byte swizzle), one box each
//   PingPong<C>           named barriers 1 .. C: consumer w issues only in its turn
//   fence_operands(r)     keeps the compiler from moving a register array (an
//                         accumulator, or the A fragments of a register wgmma)
//                         across a wgmma fence or wait
//   wgmma_kmajor<N, K, RowsA, RowsB, T>(d, a, b)
//                         d = A B, A and B K-major in shared memory: K / 16 wgmmas
//   wgmma_rs_mnmajor<N, K, T>(d, a, b)
//                         d += A B, A from registers, B MN-major: K / 16 wgmmas
//   wgmma_rs_issue / wgmma_rs_retire
//                         the register-A group with its fences: issue and commit;
//                         wait for it and release B's stage
//   pack_fragments<T>(s, a)
//                         an accumulator's columns as the A fragments of the next
//                         product (TIn pairs)
//   release_stage(leader, empty, last, tileEmpty)
//                         each warp's leader lane frees a stage (and the resident
//                         tile after its last use)
//
// Why one header: the two kernels run the same pipeline (FlashAttention-3's
// producer / consumer split, ping-pong and S / P V overlap) around different
// math between the products (an online softmax; an elementwise activation). The
// mbarrier protocol, the descriptor arithmetic and the register fences are easy
// to get subtly wrong (a missing fence makes ptxas serialize the wgmmas, C7514 /
// C7519), so they live here once; each kernel keeps its own tile schedule and
// the order of its steps.
//
// Layouts as in gemm_sm90_pipeline.cuh: WgmmaAcc for accumulators; a shared tile
// is 64-column panels of 128-byte rows, 1024-byte aligned, panel p of a `rows`-row
// tile at p * rows * 128 (the k16 step kk of a K-major operand: 32 (kk % 4) bytes
// into panel kk / 4; of an MN-major one: 16 rows further, LBO = one panel).
//
// Example: a consumer's step with S = Q K^T and O += P V in flight together
// (attention_sm90.cuh; Q of BM rows, K and V of BN rows, head dim D, one ring):
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
//   release_stage(leader, &bars[kKEmpty + ring.slot], j == last, &bars[kQEmpty]);
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

/// Warpgroup 0 lowers its registers to ProducerRegs and its thread 0 runs
/// produce(); warpgroups 1 .. Consumers raise theirs to ConsumerRegs and run
/// consume(). One consumer (256 threads) has 255 registers without setmaxnreg and
/// skips it. The raise must fit what the CTA was launched with (kThreads x the
/// launch-bound count), else setmaxnreg.inc waits forever.
template <int Consumers, int ProducerRegs, int ConsumerRegs, class Produce, class Consume>
__device__ __forceinline__ void warp_specialize(const Produce& produce, const Consume& consume) {
  if (threadIdx.x < 128) {
    if constexpr (Consumers > 1)
      sm90::setmaxnreg_dec<ProducerRegs>();
    if (threadIdx.x == 0)
      produce();
  } else {
    if constexpr (Consumers > 1)
      sm90::setmaxnreg_inc<ConsumerRegs>();
    consume();
  }
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
/// turn (named barrier 1 + w, 128 threads waiting + the previous consumer's 128
/// arriving) and then passes the turn on, so one's softmax or activation runs while
/// the tensor cores do the other's products. The last consumer passes consumer 0
/// its first turn up front (start) and so skips its final pass: every barrier sees
/// as many arrivals as waits. One consumer: no barriers.
template <int Consumers> struct PingPong {
  __device__ static __forceinline__ void start(int w) {
    if constexpr (Consumers > 1)
      if (w == Consumers - 1)
        sm90::named_barrier_arrive(1, 256); // consumer 0 goes first
  }
  __device__ static __forceinline__ void await(int w) {
    if constexpr (Consumers > 1)
      sm90::named_barrier_sync(1 + w, 256);
  }
  __device__ static __forceinline__ void pass(int w, bool final) {
    if constexpr (Consumers > 1)
      if (!(final && w == Consumers - 1))
        sm90::named_barrier_arrive(1 + (w + 1) % Consumers, 256);
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

/// d[64 x N] = A[64 x K] B[K x N] for one warpgroup, both K-major in shared memory
/// (A: panels of RowsA rows from this warpgroup's first row, at a; B: N rows of
/// panels of RowsB rows, at b): K / 16 wgmmas m64nNk16, the first overwriting d.
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
/// a, issues d += A B (wgmma_rs_mnmajor) and commits it.
template <int N, int K, class T>
__device__ __forceinline__ void wgmma_rs_issue(float (&d)[N / 2], uint32 (&a)[K / 16][4],
                                               uint32 b) {
  fence_operands(d);
  fence_operands(a);
  sm90::wgmma_fence();
  wgmma_rs_mnmajor<N, K, T>(d, a, b);
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

/// An accumulator's K columns as the A fragments of the next register wgmma, TIn pairs
/// rounded to nearest: k16 block kk is s[8 kk .. 8 kk + 7] (WgmmaAcc registers 4 c +
/// 2 h + e with c = 2 kk, 2 kk + 1: the m16n8k16 A fragment).
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
