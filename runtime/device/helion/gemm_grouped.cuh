// helion/gemm_grouped.cuh: grouped (jagged, MoE-style) GEMMs on the templates of
// gemm_sm90.cuh and gemm_sm80.cuh (include gemm_sm90.cuh first).
//
//   for g < groups:  C[start_g : end_g] = A[start_g : end_g] @ B[g]
//
// A is [M, K] row-major with the rows of all groups packed back to back, group g
// being rows [offsets[g], offsets[g + 1]) (offsets: groups + 1 integers in device
// memory, read by the kernel: the host never sees the group sizes); B is [groups,
// K, N] (or, BTransposed, [groups, N, K]); C is [M, N]. Group bounds are clamped
// to [0, M] (and end to at least start), so bad offsets never write outside C;
// groups are computed as their offsets say (overlapping ones too, as in ref mode).
//
// Tile space. Group g has cdiv(end - start, BM) x cdiv(N, BN) tiles (none when
// empty), numbered after those of groups 0 .. g-1 (GroupedTiles); within a group
// in GemmTiles order. A persistent grid strides over the flat numbering; each
// program walks the offsets forward as its tile numbers grow (two reads of
// offsets per group it passes: O(groups) per program, cached in L1).
// Example: BM 128, BN 256, N 512, group sizes {300, 0, 128}: group 0 has 3 x 2
// tiles (t = 0..5), group 1 none, group 2 1 x 2 (t = 6, 7); t = 7 is group 2's
// tile (0, 1), rows [300, 428), columns [256, 512).
//
// A tile's rows start at start + tm * BM: the last tile of a group reads rows of
// the next group (or TMA's zero fill past M) and computes them, but the epilogue
// stores only rows < end. sm90: a warpgroup whose WgM rows all lie inside the
// group stores with TMA (tma_store form), else the pairs form (per element,
// row < end); sm80: pairs only.
//
// Stream-K (sm90, with a workspace): when the tiles of all groups (counted on the
// device) leave the last wave of the persistent grid partly idle, the last tiles are
// cut into k-pieces dealt out to all CTAs (stream_k.cuh); each piece stores its f32
// partials in the workspace and the last to arrive adds them and runs the epilogue.
// Without a workspace every tile is one CTA's.
//
// Epilogue functor: as a batched GEMM's, the group first: epi(g, row, col, v0, v1)
// and, for tma_store, epi.transform(g, row, col, v); rows are rows of A and C.
//
//   GemmGroupedSm90<TIn, TOut, BM, BN, Stages, Consumers, BTransposed, Form>::run(
//       mapA {M, K}, mapB {groups, K, N} (3-D, box one group deep; as bmm's),
//       mapC {M, N} (tma_store only), M, N, K, groupM, offsets, groups, workspace,
//       epi, smem)
//     grid: #SMs (persistent; CTAs without a tile exit), block kThreads,
//     dynamic shared memory kSmemBytes (Gemm's with Batched = true).
//   GemmGroupedSm80<TIn, BM, BN, BK, Stages, BTransposed>::run(a, b, M, N, K,
//       lda, ldb, strideB, groupM, offsets, groups, epi, smem): the same tile walk
//     on GemmSm80 (G), one tile at a time through G::run_tile; grid: #SMs (the
//     launcher may give more), block 256, G::kSmemBytes.
#pragma once
#include "helion/gemm_sm90.cuh"
#include "helion/stream_k.cuh"

namespace helion::dev {

/// The flat tile numbering over groups (see the top). `seek(t)` moves forward to
/// the group holding tile t (t must not decrease between calls) and says whether
/// there is one; then `start`, `end`, `g` describe that group and `coords` gives
/// the tile's (tm, tn) within it.
template <class TOff> struct GroupedTiles {
  const TOff* offsets;
  int groups, M, BM, tilesN, groupM;
  int g = -1, first = 0, count = 0; ///< current group, its first tile and its tile count
  int64 start = 0, end = 0;         ///< its rows, clamped to [0, M]

  __device__ __forceinline__ GroupedTiles(const TOff* o, int groups_, int M_, int bm, int N,
                                          int bn, int groupM_)
      : offsets(o), groups(groups_), M(M_), BM(bm), tilesN((N + bn - 1) / bn),
        groupM(groupM_ < 1 ? 1 : groupM_) {}

  __device__ __forceinline__ bool seek(int t) {
    while (t >= first + count) {
      if (g + 1 >= groups)
        return false;
      first += count;
      ++g;
      group_bounds(offsets, g, M, start, end);
      count = static_cast<int>((end - start + BM - 1) / BM) * tilesN;
    }
    return true;
  }
  /// The tiles of all groups, counted by the whole warp (every lane gets it: redux.sync).
  __device__ __forceinline__ int total() const {
    int n = 0;
    for (int gi = static_cast<int>(threadIdx.x % 32); gi < groups; gi += 32) {
      int64 s, e;
      group_bounds(offsets, gi, M, s, e);
      n += static_cast<int>((e - s + BM - 1) / BM);
    }
#if defined(__CUDA_ARCH__)
    n = static_cast<int>(__reduce_add_sync(0xffffffffu, static_cast<unsigned>(n)));
#endif
    return n * tilesN;
  }
  __device__ __forceinline__ void coords(int t, int& tm, int& tn) const {
    GemmTiles{static_cast<int>((end - start + BM - 1) / BM), tilesN, groupM}.coords(t - first, tm,
                                                                                   tn);
  }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {
/// A piece of a split tile (stream_k.cuh), for one consumer warpgroup of 128 threads
/// whose accumulator is `acc` (Quads float4s per thread, acc[4 q] .. acc[4 q + 3] the
/// q-th): stores the partial sums in the piece's slot (thread-major float4s: coalesced,
/// and the same thread reads them back in the same layout; a slot holds SlotQuads per
/// thread and consumer) and counts its arrival; the last piece to arrive sums the
/// tile's slots in piece order into acc and returns true (then it runs the epilogue),
/// the others return false. Uses named barrier 1 + consumer. `quads` (at most Quads, the
/// same in the warpgroup): only the first quads float4s are the piece's (a tile of a
/// height known at run time; code for Quads, guarded).
template <int Quads, int SlotQuads, int Consumers>
__device__ __forceinline__ bool stream_k_reduce(const StreamK& sk, const StreamKUnit& u,
                                                float* acc, int tid, int consumer,
                                                uint8* workspace, int quads = Quads) {
  static_assert(Quads <= SlotQuads, "stream_k_reduce: the partials fill at most a slot");
  float4* slots = reinterpret_cast<float4*>(workspace + kStreamKCounterBytes);
  auto slot = [&](int sl) {
    return slots + (static_cast<int64>(sl) * Consumers + consumer) * (128 * SlotQuads) + tid;
  };
  float4* mine = slot(u.slot);
#pragma unroll
  for (int q = 0; q < Quads; ++q)
    if (q < quads)
      mine[q * 128] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
  __threadfence(); // the partials before the count
  named_barrier_sync(1 + consumer, 128);
  const int first = sk.firstSlot(u.tile), count = sk.pieces;
  int* counter = reinterpret_cast<int*>(workspace) + (u.tile - sk.dpTiles) * Consumers + consumer;
  int arrived = 0;
  if (tid == 0)
    arrived = atomicAdd(counter, 1);
  if (!named_barrier_or(1 + consumer, 128, tid == 0 && arrived == count - 1))
    return false;
  __threadfence(); // the others' partials after their counts
  if (tid == 0)
    *counter = 0; // every contributor has counted: ready for the next launch
#pragma unroll
  for (int i = 0; i < 4 * Quads; ++i)
    acc[i] = 0.f;
  for (int j = 0; j < count; ++j) {
    const float4* p = slot(first + j);
#pragma unroll
    for (int q = 0; q < Quads; ++q) {
      if (q < quads) {
        const float4 v = __ldcg(p + q * 128);
        acc[4 * q] += v.x;
        acc[4 * q + 1] += v.y;
        acc[4 * q + 2] += v.z;
        acc[4 * q + 3] += v.w;
      }
    }
  }
  return true;
}
} // namespace sm90
#endif

/// sm90: Gemm's producer / consumer pipeline over the grouped tile walk.
template <class TIn, class TOut, int BM, int BN, int Stages = 4, int Consumers = 2,
          bool BTransposed = false, EpilogueForm Form = EpilogueForm::pairs>
struct GemmGroupedSm90 {
  /// The batched Gemm of the same tile: its constants (shared memory, boxes) are ours.
  using Base = Gemm<TIn, TOut, BM, BN, 64, Stages, Consumers, BTransposed, true, Form, 1, true>;
  static constexpr int BK = 64;
  static constexpr int kThreads = Base::kThreads;
  static constexpr int kWgM = Base::kWgM, kMmaM = Base::kMmaM;
  static constexpr int kStageBytesA = Base::kStageBytesA, kStageBytes = Base::kStageBytes;
  static constexpr int kEpilogueParts = Base::kEpilogueParts;
  static constexpr int kSmemBytes = Base::kSmemBytes;

  /// `workspace`: a stream-K workspace (stream_k.cuh) of kStreamKCounterBytes of zeroed
  /// counters and then gridDim.x * BM * BN floats, or nullptr (no split).
  template <class TOff, class Epi>
  __device__ static void run(const TensorMap* mapA, const TensorMap* mapB, const TensorMap* mapC,
                             int M, int N, int K, int groupM, const TOff* offsets, int groups,
                             uint8* workspace, const Epi& epi, void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    prefetch_offsets(offsets, groups); // for total(), after the set-up
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 1023) & ~1023ull);
    uint64* full =
        reinterpret_cast<uint64*>(base + Stages * kStageBytes + Base::kEpilogueBytes);
    uint64* empty = full + Stages;
    sm90::init_ring<Stages>(full, empty, 4 * Consumers, [&] {
      prefetch_tensormap(mapA);
      prefetch_tensormap(mapB);
      if constexpr (Base::kForm == EpilogueForm::tma_store)
        prefetch_tensormap(mapC);
    });
    GroupedTiles<TOff> tiles(offsets, groups, M, BM, N, BN, groupM);
    const StreamK sk = StreamK::plan(tiles.total(), static_cast<int>(gridDim.x), (K + BK - 1) / BK,
                                     Consumers, workspace != nullptr);
    __syncthreads();
    if (threadIdx.x < 128) {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_dec<Base::kProducerRegs>();
      if (threadIdx.x == 0)
        produce(mapA, mapB, tiles, sk, base, full, empty);
    } else {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_inc<Base::kConsumerRegs>();
      consume(mapC, N, K, tiles, sk, workspace, epi, base, full, empty);
    }
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
private:
  template <class TOff>
  __device__ static void produce(const TensorMap* mapA, const TensorMap* mapB,
                                 GroupedTiles<TOff> tiles, const StreamK& sk, uint8* base,
                                 uint64* full, uint64* empty) {
    int s = 0;
    uint32 phase = 0;
    StreamKWalk walk(sk, static_cast<int>(blockIdx.x));
    for (StreamKUnit u; walk.next(u) && tiles.seek(u.tile);) {
      int tm, tn;
      tiles.coords(u.tile, tm, tn);
      const int row = static_cast<int>(tiles.start) + tm * BM, g = tiles.g;
      for (int kb = u.k0; kb < u.k1; ++kb) {
        mbarrier_wait(&empty[s], phase ^ 1);
        uint8* a = base + s * kStageBytes;
        uint8* b = a + kStageBytesA;
        mbarrier_arrive_expect_tx(&full[s], kStageBytes);
        tma_load_2d(a, mapA, &full[s], kb * BK, row); // rows past the group: never stored
        if constexpr (BTransposed) {
          tma_load_3d(b, mapB, &full[s], kb * BK, tn * BN, g);
        } else {
#pragma unroll
          for (int c = 0; c < BN / 64; ++c)
            tma_load_3d(b + c * BK * 128, mapB, &full[s], tn * BN + 64 * c, kb * BK, g);
        }
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
  }

  template <class TOff, class Epi>
  __device__ static void consume(const TensorMap* mapC, int N, int K, GroupedTiles<TOff> tiles,
                                 const StreamK& sk, uint8* workspace, const Epi& epi, uint8* base,
                                 uint64* full, uint64* empty) {
    const int consumer = warp_uniform(threadIdx.x / 128 - 1);
    const int tid = threadIdx.x % 128;
    float acc[kMmaM][BN / 2];
    int s = 0;
    uint32 phase = 0;
    // CTA c's units in StreamKWalk's order (the producer's): its whole tiles c, c + P, ..
    // below dpTiles, then piece c if there is one (at most P pieces). Two loops bounded by
    // the plan and K, not one over StreamKWalk::next, and the consumer's index through
    // warp_uniform: so ptxas keeps the ring's stage and the wgmma descriptors in uniform
    // registers. Each alone left them per thread, each wgmma's descriptors taking R2UR
    // moves: 87-89 instructions per k-block and consumer warp, 55 with both (the matmul
    // template's loop: 64; SASS of sm_90a, nvcc 13.0).
    const int kBlocks = (K + BK - 1) / BK;
    for (int t = static_cast<int>(blockIdx.x); t < sk.dpTiles; t += static_cast<int>(gridDim.x))
      unit(StreamKUnit{t, 0, kBlocks, -1}, acc, s, phase, tiles, sk, mapC, N, workspace, epi,
           base, full, empty, consumer, tid);
    if (static_cast<int>(blockIdx.x) < sk.splitPieces())
      unit(sk.unitAt(sk.dpTiles + static_cast<int>(blockIdx.x)), acc, s, phase, tiles, sk, mapC,
           N, workspace, epi, base, full, empty, consumer, tid);
    if constexpr (Base::kForm == EpilogueForm::tma_store)
      if (tid == 0)
        tma_store_wait<0>();
  }

  /// One unit: k-blocks [u.k0, u.k1) of tile u.tile, then its store (a whole tile, or the
  /// last piece of a split one to arrive, which adds the pieces' partials first).
  template <class TOff, class Epi>
  __device__ static __forceinline__ void unit(const StreamKUnit& u, float (&acc)[kMmaM][BN / 2],
                                              int& s, uint32& phase, GroupedTiles<TOff>& tiles,
                                              const StreamK& sk, const TensorMap* mapC, int N,
                                              uint8* workspace, const Epi& epi, uint8* base,
                                              uint64* full, uint64* empty, int consumer,
                                              int tid) {
    using namespace sm90;
    tiles.seek(u.tile); // a tile below the plan's total: always found
    int tm, tn;
    tiles.coords(u.tile, tm, tn);
    zero(acc);
    int prev = 0;
    for (int kb = u.k0; kb < u.k1; ++kb) {
      mbarrier_wait(&full[s], phase);
      const uint32 a = smem_addr(base + s * kStageBytes) + consumer * kWgM * 128;
      const uint32 b = smem_addr(base + s * kStageBytes + kStageBytesA);
      const uint64 descA = desc_sw128(a, 16, 1024);
      const uint64 descB = BTransposed ? desc_sw128(b, 16, 1024) : desc_sw128(b, BK * 128, 1024);
      fence(acc);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        const uint64 stepB = BTransposed ? (kk * 32) >> 4 : (kk * 16 * 128) >> 4;
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi)
          wgmma_m64k16<BN, BTransposed ? 0 : 1, TIn>(
              acc[mi], descA + ((mi * 64 * 128 + kk * 32) >> 4), descB + stepB, 1);
      }
      wgmma_commit();
      fence(acc);
      wgmma_wait<1>();
      if (kb > u.k0 && tid % 32 == 0)
        mbarrier_arrive(&empty[prev]);
      prev = s;
      if (++s == Stages) {
        s = 0;
        phase ^= 1;
      }
    }
    wgmma_wait<0>();
    fence(acc);
    if (u.k1 > u.k0 && tid % 32 == 0)
      mbarrier_arrive(&empty[prev]);
    if (u.slot < 0 || sm90::stream_k_reduce<kMmaM * BN / 8, kMmaM * BN / 8, Consumers>(
                          sk, u, &acc[0][0], tid, consumer, workspace))
      store(acc, mapC, N, tiles, tm, tn, tid, consumer, epi, base);
  }

  /// This warpgroup's rows of a finished tile; only rows < end belong to the group.
  template <class TOff, class Epi>
  __device__ static __forceinline__ void store(float (&acc)[kMmaM][BN / 2],
                                               const TensorMap* mapC, int N,
                                               const GroupedTiles<TOff>& tiles, int tm, int tn,
                                               int tid, int consumer, const Epi& epi,
                                               uint8* base) {
    using namespace sm90;
    const int row0 = static_cast<int>(tiles.start) + tm * BM + consumer * kWgM;
    const int end = static_cast<int>(tiles.end);
    const BatchEpilogue<Epi> ge{epi, tiles.g};
    if constexpr (Base::kForm == EpilogueForm::tma_store) {
      if (row0 + kWgM <= end) { // whole boxes inside the group: TMA stores clobber nothing
        epilogue_store_tma<TOut, kMmaM, BN, kWgM, kEpilogueParts>(
            acc, row0, tn * BN, N, tid, consumer, mapC, base + Stages * kStageBytes, ge);
        return;
      }
    }
    epilogue_store_pairs<kMmaM, BN, kWgM>(acc, row0, tn * BN, end, N, tid, ge);
  }

  __device__ static __forceinline__ void zero(float (&acc)[kMmaM][BN / 2]) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int r = 0; r < BN / 2; ++r)
        acc[mi][r] = 0.f;
  }

  __device__ static __forceinline__ void fence(float (&acc)[kMmaM][BN / 2]) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int r = 0; r < BN / 2; ++r)
        sm90::fence_operand(acc[mi][r]);
  }
#endif // __CUDA_ARCH__ >= 900
};

/// sm80: GemmSm80's tile loop over the groups; the functor gets rows of C.
template <class TIn, int BM, int BN, int BK, int Stages, bool BTransposed = false>
struct GemmGroupedSm80 {
  using G = GemmSm80<TIn, BM, BN, BK, Stages, BTransposed>;
  static constexpr int kThreads = G::kThreads, kSmemBytes = G::kSmemBytes;

  template <class Epi> struct Rows { // rows of the group's tile -> rows of C, group first
    const Epi& epi;
    int64 g, start;
    __device__ __forceinline__ void operator()(int64 row, int64 col, float v0, float v1) const {
      epi(g, start + row, col, v0, v1);
    }
  };

  template <class TOff, class Epi>
  __device__ static void run(const TIn* a, const TIn* b, int M, int N, int K, int64 lda, int64 ldb,
                             int64 strideB, int groupM, const TOff* offsets, int groups,
                             const Epi& epi, void* smem) {
    GroupedTiles<TOff> tiles(offsets, groups, M, BM, N, BN, groupM);
    for (int t = blockIdx.x; tiles.seek(t); t += gridDim.x) {
      __syncthreads(); // every warp is done with the previous tile's shared memory
      G::run_tile(a + tiles.start * lda, b + tiles.g * strideB,
                  static_cast<int>(tiles.end - tiles.start), N, K, lda, ldb, tiles.groupM,
                  t - tiles.first, Rows<Epi>{epi, tiles.g, tiles.start}, smem);
    }
  }
};

} // namespace helion::dev
