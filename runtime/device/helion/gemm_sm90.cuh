// helion/gemm_sm90.cuh: a Hopper (sm_90a) tensor-core GEMM mainloop.
//
//   C[M, N] = A[M, K] @ B[K, N]      (B given as [K, N] row-major, or as [N, K]
//                                     row-major with BTransposed = true: x @ k^T)
//
// A and B are bf16 or f16 (TIn), accumulated in f32 registers; C is whatever the
// epilogue writes. Not included by device.cuh: only matmul kernels pay for it.
//
// This header is the umbrella (include it, not the parts); the parts, by concern:
//   gemm_tiles.cuh           GemmTiles: the tile order (GROUP_M), shared with sm80
//   gemm_sm90_pipeline.cuh   WgmmaAcc and sm90::: wgmma fence/commit/wait and the
//                            m64nNk16 instruction, desc_sw128, setmaxnreg, named
//                            barriers, cluster arrive and multicast TMA
//   gemm_sm90_epilogue.cuh   EpilogueForm, IdentityTransform, sm90::stmatrix_x4,
//                            epilogue_store_pairs, epilogue_store_tma
//   gemm_sm90.cuh (this)     Gemm: the producer/consumer kernel, gemm_kernel
//   gemm_sm90_mainloops.cuh  Gemm's other K loops: a computed A (mainloop_prologue_a),
//                            a product scaled per K block (mainloop_kscale)
//   gemm_sm80.cuh            GemmSm80: the mma.sync fallback (and tf32 for f32)
//
// How it runs. One CTA = 1 producer warpgroup + `Consumers` consumer warpgroups
// (kThreads = 128 * (Consumers + 1)). Thread 0 of the producer streams BM x BK
// tiles of A and BK x BN tiles of B with TMA (cp.async.bulk.tensor) into a ring
// of `Stages` shared-memory stages, 128-byte swizzled, each completing on a
// `full` mbarrier. Consumer warpgroup c owns rows [c * kWgM, (c + 1) * kWgM) of
// the BM x BN tile and runs wgmma.mma_async m64nBNk16 on them (kWgM / 64 of them
// per k16 step), keeping one wgmma group in flight; when a stage's group is done
// each consumer warp arrives on the stage's `empty` mbarrier and the producer
// refills it. setmaxnreg gives the consumers the registers the producer does
// not need. Tiles are visited in Triton's GROUP_M order (groupM rows of tiles
// at a time, for L2 reuse), one per CTA (Persistent = false, grid = #tiles) or
// strided over a persistent grid (Persistent = true, grid = min(#SMs, #tiles)),
// where the producer already loads the next tile while the consumers run the
// epilogue of this one.
//
// Template parameters of Gemm<...>:
//   TIn          bf16 or f16 (A and B), or f8e4m3 / f8e5m2 with BTransposed (the
//                8-bit wgmma reads both operands K-major only; m64nNk32, a k32 step
//                is 32 bytes as a k16 step of 16-bit elements is)
//   TOut         the element type of C for EpilogueForm::tma_store (bf16, f16,
//                float; 8-bit at BN 256); unused by EpilogueForm::pairs
//   BM, BN       the CTA tile; BM = 64 * kMmaM * Consumers, BN in {16, 32, 64,
//                96, 128, 192, 256} (and a multiple of 64 unless BTransposed)
//   BK           one 128-byte swizzle row: 64 (16-bit TIn) or 128 (8-bit TIn); the
//                shared-memory layout is the same bytes either way
//   Stages       depth of the TMA ring (2..8; shared memory decides)
//   Consumers    1, 2 or 3 consumer warpgroups
//   BTransposed  false: B is [K, N] row-major; true: B is [N, K] row-major
//   Persistent   see above
//   Form         EpilogueForm::pairs or EpilogueForm::tma_store (below); a
//                tma_store whose C tile does not slice next to the ring stores
//                pairs (kForm, tma_store_parts in gemm_smem.cuh)
//   Cluster      1, or 2: CTAs (2i, 2i+1) form a cluster on two tiles stacked
//                along M; each loads half of the B k-block and multicasts it to
//                both (B is read from L2 once per cluster). Launch with cluster
//                dimension (2, 1, 1) (cuLaunchKernelEx attribute)
//   Batched      false; or true: C[b] = A[b] @ B[b] for b < `batches` (the last
//                argument of run), the maps 3-D (batch outermost, box 1 deep),
//                tiles walked batch by batch (GemmTiles::coords), and the
//                epilogue functor called with the batch first: epi(batch, row,
//                col, v0, v1), epi.transform(batch, row, col, v). Cluster 1 only
//
// A prologue (a computed A, gemm_tiles.cuh has_prologue_a): an epilogue functor with
// kPrologueA and prologue_a(row, k, v) has each consumer warp load its A fragments from the
// stage (ldmatrix), apply prologue_a in registers (elements past K zeroed) and issue
// register-A wgmmas (mainloop_prologue_a); the plain loop is unchanged.
//
// A product scaled per K block (gemm_tiles.cuh has_kscale: an epilogue functor with
// kKScale, kscale_row(row, kb) and kscale_col(col, kb)) runs mainloop_kscale: each K block
// of kKScaleBlock elements into a part accumulator, added to acc times its row and column
// factors; the next block's factors load while a block's wgmmas run, and with 2 consumers
// and blocks of one stage two parts alternate (a block's adds overlap the next block's
// wgmmas: kscaleTwoParts).
//
// Epilogue (the finished f32 accumulator tile goes to a user functor `epi`):
//   pairs:     epi(int64 row, int64 col, float v0, float v1) for each pair of
//              adjacent columns (col even, v1 is at col + 1) a thread owns,
//              called only for row < M and col < N. col + 1 < N unless N is
//              odd; a functor for odd N must check it. The functor stores
//              (st.global of 2 elements) and may do anything else per element.
//   tma_store: float epi.transform(int64 row, int64 col, float v) maps each
//              in-bounds and out-of-bounds value (return v for a plain
//              matmul: IdentityTransform); the library converts to TOut,
//              writes the tile to shared memory (stmatrix, 128-byte swizzle)
//              and stores it with TMA through mapC. Needs kEpilogueBytes more
//              shared memory, and N * sizeof(TOut) a multiple of 16 bytes:
//              TMA clips rows past M, but columns past N only in 16-byte
//              steps (seen on the H100: N = 201, ldc = 208 wrote columns
//              201..207), so use it when ldc == N (TMA's stride rule then
//              makes N * sizeof(TOut) a multiple of 16) or padding may be
//              clobbered.
//
// What the host builds (helion::rt::makeTensorMap, outermost dimension first,
// Swizzle::b128, base 16-byte aligned, row strides multiples of 16 bytes):
//   mapA: A as {M, K} (stride {lda, 1}),   box {kBoxARows, kBoxACols} = {BM, 64}
//   mapB: B as {K, N} (stride {ldb, 1}),   box {kBoxBRows, kBoxBCols} = {64, 64}
//         or, BTransposed, as {N, K},      box {BN / Cluster, 64}
//   mapC: C as {M, N} (stride {ldc, 1}),   box {kBoxCRows, kBoxCCols} = {kWgM,
//         128 / sizeof(TOut)}; tma_store only (pass any map for pairs)
// Measured on the H100 (docs/gemm.md): 128x256, 3 or 4 stages, 2 consumers,
// persistent, tma_store matches cuBLAS at 4096^3 and is ~2.7 % faster at 8192^3.
// Launch: block kThreads, dynamic shared memory kSmemBytes (raise the limit
// with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) first: it is > 48 KB),
// grid gridSize(M, N, maxCtas) with maxCtas = #SMs (Cluster 2: the CTAs of
// cuOccupancyMaxActiveClusters clusters). The kernel:
//
//   template <...> __global__ void __launch_bounds__(G::kThreads, 1)
//   k(const __grid_constant__ hd::TensorMap a, const __grid_constant__ hd::TensorMap b,
//     const __grid_constant__ hd::TensorMap c, int M, int N, int K, int groupM, Epi epi) {
//     extern __shared__ __align__(1024) hd::uint8 smem[];
//     G::run(&a, &b, &c, M, N, K, groupM, epi, smem);
//   }
//
// gemm_kernel below is exactly that. The (1) in __launch_bounds__ matters:
// setmaxnreg works only under a register cap at entry.
//
// Fragment layout (for epilogues and attention): WgmmaAcc::row/col say where
// accumulator register i of thread t (0..127 within its warpgroup) of one
// m64nNk16 result sits; Gemm::acc_row/acc_col add the tile offsets.
#pragma once
#include "helion/async.cuh"
#include "helion/gemm_sm80.cuh"          // the sm80 fallback (helionc emits both)
#include "helion/gemm_sm90_epilogue.cuh" // EpilogueForm, epilogue_store_pairs / _tma
#include "helion/gemm_smem.cuh"          // tma_store_parts
#include "helion/gemm_fp8.cuh"           // wgmma m64nNk32 on f8e4m3 / f8e5m2
#include "helion/gemm_sm90_pipeline.cuh" // wgmma, descriptors, setmaxnreg, cluster TMA
#include "helion/attention_sm90_ops.cuh"  // wgmma_m64k16_rs: the register-A wgmma
#include "helion/gemm_tiles.cuh"         // GemmTiles: the tile order
#include "helion/types.cuh"

// Timing probes (test/gpu/grouped_rows.cu -DPROBE defines them to record clock64() in
// global memory; nothing here otherwise): the kernel's moments (entry, first load, first
// data, epilogues, end) as gemm_grouped_rows.cuh marks them, so that its plain persistent
// GEMM can be timed beside the row-fitting kernel (scripts/grouped_rows_probe.py --dense).
#ifndef HELION_ROWS_PROBE
#define HELION_ROWS_PROBE(event) ((void)0)
#define HELION_ROWS_PROBE_SPAN(what, begin) ((void)0)
#endif

namespace helion::dev {

/// The GEMM: constants for the host and the device function `run` (see the top).
template <class TIn, class TOut, int BM, int BN, int BK = 64, int Stages = 4, int Consumers = 2,
          bool BTransposed = false, bool Persistent = true,
          EpilogueForm Form = EpilogueForm::pairs, int Cluster = 1, bool Batched = false,
          bool StagedA = false>
struct Gemm {
  static_assert(is_same_v<TIn, bf16> || is_same_v<TIn, f16> || is_float8_v<TIn>,
                "Gemm: TIn must be bf16, f16, f8e4m3 or f8e5m2");
  static_assert(BK * sizeof(TIn) == 128, "Gemm: BK must be one 128-byte swizzle row of TIn");
  static_assert(!is_float8_v<TIn> || BTransposed,
                "Gemm: 8-bit operands need B as [N, K] (wgmma reads them K-major only)");
  static_assert(Consumers >= 1 && Consumers <= 3, "Gemm: 1 to 3 consumer warpgroups");
  static_assert(BM % (64 * Consumers) == 0, "Gemm: BM must be a multiple of 64 * Consumers");
  static_assert(BN % 16 == 0 && BN <= 256, "Gemm: BN must be a multiple of 16, at most 256");
  static_assert(BTransposed || BN % 64 == 0, "Gemm: BN must be a multiple of 64 for [K, N] B");
  static_assert(Stages >= 2, "Gemm: at least 2 stages");
  static_assert(Cluster == 1 || Cluster == 2, "Gemm: clusters of 1 or 2 CTAs");
  static_assert(!Batched || Cluster == 1, "Gemm: a batched GEMM runs without clusters");
  static_assert(!StagedA || (!Batched && !is_float8_v<TIn>),
                "Gemm: a staged A-shaped tensor goes with 2-D, 16-bit A prologues only");
  static_assert(BTransposed ? (BN / Cluster) % 8 == 0 : (BN / 64) % Cluster == 0,
                "Gemm: each CTA of a cluster loads an equal, whole part of B");

  static constexpr int kCluster = Cluster;
  static constexpr int kConsumers = Consumers;
  static constexpr int kThreads = 128 * (Consumers + 1);
  static constexpr int kWgM = BM / Consumers; ///< tile rows per consumer warpgroup
  static constexpr int kMmaM = kWgM / 64;     ///< m64 wgmmas per consumer per k16 step
  static constexpr int kAccRegs = kMmaM * BN / 2;
  static constexpr int kStageBytesA = BM * 128; ///< BK elements = 128 bytes per row
  static constexpr int kStageBytesB = BN * 128;
  static constexpr int kKSteps = 4; ///< wgmma per row: k16 (16-bit) or k32 (8-bit), 32 bytes
  /// StagedA: the A prologue's second tensor (y[tm, tk]), a k-block as A's after B.
  static constexpr int kStageBytesY = StagedA ? kStageBytesA : 0;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB + kStageBytesY;
  static constexpr int kMaxSmem = kSm90MaxSmem; ///< per CTA on sm_90
  static constexpr int kRingBytes = 1024 + Stages * kStageBytes + 16 * Stages;
  static_assert(kRingBytes == gemm_ring_bytes(BM, BN, Stages, StagedA),
                "Gemm: the ring as its launcher sizes it (gemm_smem.cuh)");
  static constexpr int kTileCBytes = BM * BN * static_cast<int>(sizeof(TOut));
  /// tma_store writes the C tile in kEpilogueParts column slices through a
  /// buffer of 1/kEpilogueParts of it, the fewest slices that fit next to the
  /// ring in whole 128-byte boxes (tma_store_parts, gemm_smem.cuh; 128x256 bf16
  /// with 4 stages: 2 slices of 128 columns). Where no slicing does, this GEMM
  /// stores pairs: kForm is the form it runs, Form the one asked for.
  static constexpr int kTmaParts =
      Form == EpilogueForm::tma_store
          ? tma_store_parts(kRingBytes, kTileCBytes, BN, static_cast<int>(sizeof(TOut)))
          : 0;
  static constexpr EpilogueForm kForm =
      kTmaParts > 0 ? EpilogueForm::tma_store : EpilogueForm::pairs;
  static constexpr int kEpilogueParts = kTmaParts > 0 ? kTmaParts : 1;
  static constexpr int kEpilogueBytes =
      kForm == EpilogueForm::tma_store ? kTileCBytes / kEpilogueParts : 0;
  /// Dynamic shared memory: 1024 bytes of alignment slack, the ring, the C
  /// buffer for tma_store, a full and an empty mbarrier per stage.
  static constexpr int kSmemBytes = kRingBytes + kEpilogueBytes;
  static_assert(kSmemBytes <= kMaxSmem, "Gemm: over the 227 KB of shared memory of a CTA");

  // Tensor-map boxes, outermost first, in elements (all Swizzle::b128).
  static constexpr int kBoxARows = BM, kBoxACols = BK;
  static constexpr int kBoxBRows = BTransposed ? BN / Cluster : BK;
  static constexpr int kBoxBCols = BTransposed ? BK : 64;
  static constexpr int kBoxCRows = kWgM, kBoxCCols = 128 / static_cast<int>(sizeof(TOut));
  static_assert(kForm == EpilogueForm::pairs || BN % (kBoxCCols * kEpilogueParts) == 0,
                "Gemm: tma_store needs BN to be a multiple of 128 bytes of TOut per slice");

  // setmaxnreg: 64K registers per SM shared by kThreads threads.
  static constexpr int kProducerRegs = Consumers == 2 ? 40 : 24;
  static constexpr int kConsumerRegs = Consumers == 2 ? 232 : 160;

  /// Work units: tiles, or with clusters, column-aligned groups of Cluster
  /// tiles stacked along M (a cluster runs one unit, CTA rank r its row r).
  __host__ __device__ static constexpr int units(int M, int N) {
    return ((M + BM * Cluster - 1) / (BM * Cluster)) * ((N + BN - 1) / BN);
  }
  /// The grid: Cluster CTAs per unit, or when persistent at most `maxCtas`
  /// (#SMs; with clusters, cudaOccupancyMaxActiveClusters * Cluster), rounded
  /// down to whole clusters.
  __host__ __device__ static constexpr int gridSize(int M, int N, int maxCtas, int batches = 1) {
    return Persistent && maxCtas / Cluster < units(M, N) * batches
               ? maxCtas / Cluster * Cluster
               : units(M, N) * batches * Cluster;
  }
  /// Row and column within the BM x BN tile of accumulator acc[mi][reg] of
  /// thread `thread` (0..127) of consumer warpgroup `consumer`.
  __host__ __device__ static constexpr int acc_row(int consumer, int thread, int mi, int reg) {
    return consumer * kWgM + 64 * mi + WgmmaAcc::row(thread, reg);
  }
  __host__ __device__ static constexpr int acc_col(int thread, int reg) {
    return WgmmaAcc::col(thread, reg);
  }

  /// The whole kernel body; every thread of the CTA calls it. `smem` is the
  /// dynamic shared memory (kSmemBytes). Uses named barriers 1..Consumers.
  /// `batches`: the number of products when Batched (else 1).
  template <class Epi>
  __device__ static void run(const TensorMap* mapA, const TensorMap* mapB, const TensorMap* mapC,
                             int M, int N, int K, int groupM, const Epi& epi, void* smem,
                             int batches = 1, const TensorMap* mapY = nullptr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    HELION_ROWS_PROBE(entry);
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 1023) & ~1023ull);
    uint64* full = reinterpret_cast<uint64*>(base + Stages * kStageBytes + kEpilogueBytes);
    uint64* empty = full + Stages;
    // Empty: each consumer warp of the cluster arrives.
    sm90::init_ring<Stages>(full, empty, 4 * Consumers * Cluster, [&] {
      prefetch_tensormap(mapA);
      prefetch_tensormap(mapB);
      if constexpr (StagedA)
        prefetch_tensormap(mapY);
      if constexpr (kForm == EpilogueForm::tma_store)
        prefetch_tensormap(mapC);
    });
    if constexpr (Cluster > 1)
      sm90::cluster_sync(); // the peer's barriers exist before we multicast to them
    else
      __syncthreads();

    const int rank = Cluster > 1 ? static_cast<int>(sm90::cluster_ctarank()) : 0;
    const GemmTiles units{(M + BM * Cluster - 1) / (BM * Cluster), (N + BN - 1) / BN,
                          groupM < Cluster ? 1 : groupM / Cluster};
    const int first = blockIdx.x / Cluster;
    const int total = Batched ? units.count() * batches : units.count();
    const int step = Persistent ? static_cast<int>(gridDim.x) / Cluster : total;
    const int kBlocks = (K + BK - 1) / BK;
    if (threadIdx.x < 128) {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x == 0)
        produce(mapA, mapB, mapY, units, total, first, step, rank, kBlocks, base, full, empty);
    } else {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_inc<kConsumerRegs>();
      consume(mapC, M, N, K, units, total, first, step, rank, kBlocks, epi, base, full, empty);
    }
    if constexpr (Cluster > 1)
      sm90::cluster_sync(); // no CTA leaves while its peer may still arrive on its barriers
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
private:
  /// One thread: waits for a free stage, then loads A's and B's k-block into it.
  __device__ static void produce(const TensorMap* mapA, const TensorMap* mapB,
                                 const TensorMap* mapY, GemmTiles units,
                                 int total, int first, int step, int rank, int kBlocks,
                                 uint8* base, uint64* full, uint64* empty) {
    int s = 0;
    uint32 phase = 0;
    for (int t = first; t < total; t += step) {
      int tb = 0, tm, tn;
      if constexpr (Batched)
        units.coords(t, tb, tm, tn);
      else
        units.coords(t, tm, tn);
      tm = tm * Cluster + rank;
      for (int kb = 0; kb < kBlocks; ++kb) {
        mbarrier_wait(&empty[s], phase ^ 1); // a fresh barrier passes parity 1 at once
        HELION_ROWS_PROBE(firstLoad);
        uint8* a = base + s * kStageBytes;
        uint8* b = a + kStageBytesA;
        mbarrier_arrive_expect_tx(&full[s], kStageBytes); // whole boxes, zero-filled or not
        if constexpr (Batched) {
          load_batch(a, b, mapA, mapB, &full[s], kb, tm, tn, tb);
        } else if constexpr (Cluster > 1) {
          tma_load_2d(a, mapA, &full[s], kb * BK, tm * BM);
          // This CTA loads its 1/Cluster of B for the whole cluster (the peers
          // load the rest into our ring): the cluster reads B from L2 once.
          constexpr uint16 kMask = (1u << Cluster) - 1;
          if constexpr (BTransposed) {
            sm90::tma_load_2d_multicast(b + rank * (BN / Cluster) * 128, mapB, &full[s], kb * BK,
                                  tn * BN + rank * (BN / Cluster), kMask);
          } else {
            constexpr int kBoxes = BN / 64 / Cluster;
#pragma unroll
            for (int c = rank * kBoxes; c < (rank + 1) * kBoxes; ++c)
              sm90::tma_load_2d_multicast(b + c * BK * 128, mapB, &full[s], tn * BN + 64 * c, kb * BK,
                                    kMask);
          }
        } else if constexpr (BTransposed) {
          tma_load_2d(a, mapA, &full[s], kb * BK, tm * BM);
          tma_load_2d(b, mapB, &full[s], kb * BK, tn * BN);
        } else {
          tma_load_2d(a, mapA, &full[s], kb * BK, tm * BM);
          // BN / 64 boxes of 64 K-rows x 64 columns (8 KB each, side by side).
#pragma unroll
          for (int c = 0; c < BN / 64; ++c)
            tma_load_2d(b + c * BK * 128, mapB, &full[s], tn * BN + 64 * c, kb * BK);
        }
        if constexpr (StagedA) // y's k-block as A's, after B
          tma_load_2d(b + kStageBytesB, mapY, &full[s], kb * BK, tm * BM);
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
  }

  /// Batched: k-block kb of A[tb] and B[tb] through the 3-D maps (boxes one
  /// batch deep: the same bytes in shared memory as the 2-D boxes).
  __device__ static __forceinline__ void load_batch(uint8* a, uint8* b, const TensorMap* mapA,
                                                    const TensorMap* mapB, uint64* bar, int kb,
                                                    int tm, int tn, int tb) {
    tma_load_3d(a, mapA, bar, kb * BK, tm * BM, tb);
    if constexpr (BTransposed) {
      tma_load_3d(b, mapB, bar, kb * BK, tn * BN, tb);
    } else {
#pragma unroll
      for (int c = 0; c < BN / 64; ++c)
        tma_load_3d(b + c * BK * 128, mapB, bar, tn * BN + 64 * c, kb * BK, tb);
    }
  }

  template <class Epi>
  __device__ static void consume(const TensorMap* mapC, int M, int N, int K, GemmTiles units,
                                 int total,
                                 int first, int step, int rank, int kBlocks, const Epi& epi,
                                 uint8* base, uint64* full, uint64* empty) {
    using namespace sm90;
    const int consumer = threadIdx.x / 128 - 1;
    const int tid = threadIdx.x % 128;
    float acc[kMmaM][BN / 2];
    int s = 0;
    uint32 phase = 0;
    for (int t = first; t < total; t += step) {
      int tb = 0, tm, tn;
      if constexpr (Batched)
        units.coords(t, tb, tm, tn);
      else
        units.coords(t, tm, tn);
      tm = tm * Cluster + rank;
#pragma unroll
      for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
        for (int r = 0; r < BN / 2; ++r)
          acc[mi][r] = 0.f;
      if constexpr (has_kscale<Epi>) {
        mainloop_kscale(acc, epi, tm * BM + consumer * kWgM, tn * BN, M, N, K, kBlocks, tid,
                        base, full, empty, s, phase);
      } else if constexpr (has_prologue_a<Epi>) {
        mainloop_prologue_a(acc, epi, tm * BM + consumer * kWgM, K, kBlocks, tid, consumer,
                            base, full, empty, s, phase);
      } else {
        int prev = 0;
        for (int kb = 0; kb < kBlocks; ++kb) {
          mbarrier_wait(&full[s], phase);
          if (kb == 0) {
            HELION_ROWS_PROBE(firstData);
            HELION_ROWS_PROBE_SPAN(gaps, epilogueEnd);
          }
          const uint32 a = smem_addr(base + s * kStageBytes) + consumer * kWgM * 128;
          const uint32 b = smem_addr(base + s * kStageBytes + kStageBytesA);
          const uint64 descA = desc_sw128(a, 16, 1024);
          const uint64 descB = descOfB(b);
          fence_acc(acc);
          wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < kKSteps; ++kk)
            wgmma_k_step(acc, descA, descB, kk, 1);
          wgmma_commit();
          fence_acc(acc);
          // One group stays in flight: the previous k-block's is done, free its stage.
          wgmma_wait<1>();
          if (kb > 0 && tid % 32 == 0)
            release(&empty[prev]);
          prev = s;
          advance(s, phase);
        }
        wgmma_wait<0>();
        fence_acc(acc);
        if (kBlocks > 0 && tid % 32 == 0)
          release(&empty[prev]);
      }

      const int row0 = tm * BM + consumer * kWgM; // this warpgroup's first row
      const int col0 = tn * BN;
      HELION_ROWS_PROBE(epilogueBegin);
      if constexpr (Batched)
        epilogue(acc, row0, col0, M, N, tid, consumer, mapC, base, BatchEpilogue<Epi>{epi, tb},
                 tb);
      else
        epilogue(acc, row0, col0, M, N, tid, consumer, mapC, base, epi, 0);
      HELION_ROWS_PROBE_SPAN(epilogues, epilogueBegin);
      HELION_ROWS_PROBE(epilogueEnd);
    }
    if constexpr (kForm == EpilogueForm::tma_store)
      if (tid == 0)
        tma_store_wait<0>(); // the last tile's shared memory is read before exit
    HELION_ROWS_PROBE(end);
  }

  /// The K loop of a computed A (an A prologue, gemm_tiles.cuh): each warp loads its
  /// A fragments from the stage (ldmatrix; the 128-byte swizzle is chunk c of row r
  /// at c ^ (r % 8)), applies the prologue in registers and issues register-A wgmmas
  /// (B from shared memory). Two fragment buffers alternate (the loop is unrolled by
  /// two so both stay in registers): block kb's group is issued, the previous one
  /// waited for (one group stays in flight, as in the plain loop) and its stage
  /// freed, then block kb + 1's fragments load into the buffer that group read.
  template <class Epi>
  __device__ static void
  mainloop_prologue_a(float (&acc)[kMmaM][BN / 2], const Epi& epi, int64 row0, int K,
                      int kBlocks, int tid, int consumer, uint8* base, uint64* full,
                      uint64* empty, int& s, uint32& phase);

  /// The k-steps (32 bytes of K each) of one scale block of a functor with has_kscale.
  template <class Epi> __device__ static constexpr int kscaleSteps() {
    return Epi::kKScaleBlock / (32 / static_cast<int>(sizeof(TIn)));
  }
  /// Whether the K-scale loop runs two parts (mainloop_kscale): blocks of one stage each,
  /// and registers for the accumulator and two parts (2 consumers' 232 per thread hold
  /// 3 x 64 of them; 3 consumers' 160 do not).
  template <class Epi> __device__ static constexpr bool kscaleTwoParts() {
    return kscaleSteps<Epi>() == kKSteps && Consumers == 2 && kAccRegs <= 64;
  }

  /// The K loop of a product scaled per K block (gemm_tiles.cuh, has_kscale): each block
  /// of Epi::kKScaleBlock elements runs into a part accumulator (its first k-step's
  /// wgmmas overwrite it: scale-d 0), which is waited for and added to acc times the
  /// block's row and column factors; the next block's factors load a block ahead. Blocks
  /// of one stage with 2 consumers (kscaleTwoParts) alternate between two parts: the
  /// next block is issued before a block is waited for, so its adds overlap the next
  /// block's wgmmas. Otherwise one part: blocks of whole stages wait for each block's
  /// group (the consumers run free: taking turns per stage, on named barriers, was 2-8 %
  /// slower on an H200), smaller blocks (several per stage) load each block's factors
  /// before waiting for it.
  template <class Epi>
  __device__ static void
  mainloop_kscale(float (&acc)[kMmaM][BN / 2], const Epi& epi, int row0, int col0, int M,
                  int N, int K, int kBlocks, int tid, uint8* base, uint64* full, uint64* empty,
                  int& s, uint32& phase);

  /// The wgmmas of k-step kk (of kKSteps) of a stage into `d`, A and B from their stage
  /// descriptors (A: this warpgroup's rows); scale-d 0 overwrites `d`.
  __device__ static __forceinline__ void wgmma_k_step(float (&d)[kMmaM][BN / 2], uint64 descA,
                                                      uint64 descB, int kk, int scaleD) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi) {
      const uint64 dA = descA + ((mi * 64 * 128 + kk * 32) >> 4);
      if constexpr (is_float8_v<TIn>)
        sm90::wgmma_m64k32_f8<BN, TIn>(d[mi], dA, descB + stepOfB(kk), scaleD);
      else
        sm90::wgmma_m64k16<BN, BTransposed ? 0 : 1, TIn>(d[mi], dA, descB + stepOfB(kk), scaleD);
    }
  }

  /// B's descriptor at stage address b, and its k16 (8-bit: k32) step kk: K-major,
  /// 32 bytes along the row; N-major B, 16 K-rows.
  __device__ static __forceinline__ uint64 descOfB(uint32 b) {
    return BTransposed ? sm90::desc_sw128(b, 16, 1024) : sm90::desc_sw128(b, BK * 128, 1024);
  }
  __device__ static __forceinline__ uint64 stepOfB(int kk) {
    return BTransposed ? (kk * 32) >> 4 : (kk * 16 * 128) >> 4;
  }
  __device__ static __forceinline__ void advance(int& s, uint32& phase) {
    if (++s == Stages) {
      s = 0;
      phase ^= 1;
    }
  }
  __device__ static __forceinline__ void fence_frags(uint32 (&f)[kMmaM][kKSteps][4]) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          sm90::fence_operand(f[mi][kk][i]);
  }

  /// The finished tile to the epilogue functor (Batched: through a 3-D mapC to `batch`).
  template <class E>
  __device__ static __forceinline__ void epilogue(float (&acc)[kMmaM][BN / 2], int row0, int col0,
                                                  int M, int N, int tid, int consumer,
                                                  const TensorMap* mapC, uint8* base, const E& epi,
                                                  int batch) {
    if constexpr (kForm == EpilogueForm::pairs)
      sm90::epilogue_store_pairs<kMmaM, BN, kWgM>(acc, row0, col0, M, N, tid, epi);
    else
      sm90::epilogue_store_tma<TOut, kMmaM, BN, kWgM, kEpilogueParts, Batched>(
          acc, row0, col0, N, tid, consumer, mapC, base + Stages * kStageBytes, epi, batch);
  }

  /// Frees a stage: in every CTA of the cluster, since each one's producer
  /// writes part of B into all of them.
  __device__ static __forceinline__ void release(uint64* emptyBar) {
    if constexpr (Cluster > 1) {
#pragma unroll
      for (int r = 0; r < Cluster; ++r)
        sm90::mbarrier_arrive_cluster(emptyBar, r);
    } else {
      mbarrier_arrive(emptyBar);
    }
  }

  __device__ static __forceinline__ void fence_acc(float (&acc)[kMmaM][BN / 2]) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int r = 0; r < BN / 2; ++r)
        sm90::fence_operand(acc[mi][r]);
  }

#endif // __CUDA_ARCH__ >= 900
};

/// The kernel of a Gemm configuration G (what helionc emits, spelled once here
/// for tests and direct use).
template <class G, class Epi>
__global__ void __launch_bounds__(G::kThreads, 1)
    gemm_kernel(const __grid_constant__ TensorMap mapA, const __grid_constant__ TensorMap mapB,
                const __grid_constant__ TensorMap mapC, int M, int N, int K, int groupM, Epi epi) {
  extern __shared__ __align__(1024) uint8 gemm_smem[];
  G::run(&mapA, &mapB, &mapC, M, N, K, groupM, epi, gemm_smem);
}

} // namespace helion::dev

#include "helion/gemm_sm90_mainloops.cuh" // Gemm::mainloop_prologue_a, mainloop_kscale
