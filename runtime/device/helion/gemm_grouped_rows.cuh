// helion/gemm_grouped_rows.cuh: a grouped GEMM whose row tiles fit each group
// (sm_90a, 16-bit operands and output, the accumulator stored as is). The launcher of
// a grouped GEMM runs it where GemmParams::groupedRows allows (MatmulLauncher.cpp);
// scripts/grouped_rows_check.sh builds it with nvcc and times variants of it
// (RowBoxes) side by side (docs/gemm.md, "The row-fitting kernel").
//
//   for g < groups:  C[start_g : end_g] = A[start_g : end_g] @ B[g]
//
// as gemm_grouped.cuh's (A [M, K] and C [M, N] row-major, B [groups, K, N], offsets
// on the device), but each tile computes the transposed product
//   C^T[n0 : n0 + 128, rows] = B[g]^T[n0 : n0 + 128, :] @ A[rows, :]^T
// so that a group's rows are wgmma's N, which can be any multiple of 8 up to 256,
// instead of its M (64 per warpgroup). Group g of m rows has t = ceil(m / cap) row
// tiles of h = m / t rows rounded up to 8 (then t = ceil(m / h); GroupRows in
// grouped_rows_plan.cuh), so a tile computes at most 7 rows past its group's end,
// where a 128-row tile computes up to 127. Example (cap 256): m = 1025 gives t = 5,
// h = 208 (1040 rows computed; 1152 with 128-row tiles); m = 1836: t = 8, h = 232.
// The cap (256 .. 128) balances the persistent grid's waves: each CTA counts all
// groups' tiles under each cap and takes the one that fills the waves of cap 256's
// tiles best (GroupedRowsShape::chooseCap: one group of 1664 rows, N 4096, 132 SMs:
// cap 224, 256 tiles of 208 rows in 1.94 waves instead of 224 of 240 in 1.70). Each
// CTA then orders the groups by decreasing h in shared memory (the same order in all:
// order_by_height), so the grid's last tiles are its smallest.
//
// The producer is a warp: it walks the groups 32 at a time (GroupedRowTiles::seekWarp:
// one round trip of global loads for 32 groups' offsets; 64 groups of 256 rows with N
// 1024 put about 16 groups between a CTA's tiles), and its lane 0 issues the loads. It
// writes each unit's rows, column tile and number (StreamK::unitAt) into the stage of
// its first k-block (StageTile), where the consumers read it: they do not walk the
// groups. CTA c takes unit c first; then, with a workspace (and Dynamic), the launch's
// next unit from an atomic counter in it, else units c + P, c + 2 P, ... (UnitDeal,
// stream_k.cuh).
//
// Before its tiles a CTA prices the caps (below) and, when the chosen cap's tiles have
// more than one height, orders the groups by height; the offsets' first lines are
// prefetched at entry. Session 36's probes (one group of 8192 rows, N = K = 4096, H200):
// the first data came 9.45 us after the set-up's end, now 6.9 (the first unit without
// the atomic, no order for one height); 7.6 us after the kernel's start, where the plain
// matmul template's comes after 2.6.
//
// Per tile, two consumer warpgroups each own 64 of its 128 columns: their A operand
// is B[g]'s k-block as TMA loads it ([64 k][64 n], N-major: wgmma's transposed A),
// their B operand the tile's h rows of A ([h][64 k], K-major), loaded as one box of h
// rows rounded up to 16 (kExact: a map per height; every extra TMA request per k-block
// costs; the up to 8 rows past h are loaded, not used). The
// accumulator (64 columns x h rows per consumer, float[128]) is converted to the
// output type, transposed by stmatrix .trans into a swizzled shared buffer of 128 rows
// x 64 columns at a time, and stored by TMA in one box per pass, only rows inside the
// group (the last fewer than 16 by 16-byte stores). Only the k-loop has a copy per
// height (wgmma's N); the store and the stream-K exchange are one copy, guarded by the
// height at run time (the kernel's code: 158 KB, 382 KB with a whole tile per height).
//
// Stream-K (with a workspace), as gemm_grouped.cuh's: when all groups' tiles (counted
// on the device) leave the persistent grid's last wave partly idle, the last tiles
// (the smallest, in height order) are cut into k-pieces dealt out to all CTAs
// (stream_k.cuh); a piece stores its f32 partials in its slot of the workspace
// (kStreamKSlotBytes each) and the last to arrive adds them and stores the tile.
// Example: 8 groups of [1688, 687, 1045, 1595, 1693, 1702, 411, 1830] rows, N 4096,
// K 4096: 46 row tiles x 32 column tiles = 1472 tiles on 132 CTAs, 11 whole waves and
// 20 tiles left, each cut into 5 pieces of 12-13 k-blocks (100 CTAs): a twelfth wave of
// about 24 k-blocks' time (stream_k.cuh's cost) instead of a whole tile's 64.
//
//   GemmGroupedRowsSm90<T, Stages, Boxes, BalanceWaves, TileOverheadRows, Dynamic>::run(mapsA
//       (kMapsA maps of A {M, K}),
//       mapB {groups, K, N} box {64, 64, 1}, mapsC (kMapsC maps of C {M, N}), C, ldc,
//       M, N, K, offsets, groups, byHeight, workspace (kStreamKCounterBytes of zeroed
//       counters, then gridDim.x x kStreamKSlotBytes; the kernel leaves the counters
//       zeroed; or null: no split, units dealt out statically), smem);
//     kExact's maps: GroupedRowMaps
//     grid: #SMs (persistent: CTA i takes units i, i + gridDim.x, ... or the next free), block
//     kThreads (1 producer + 2 consumer warpgroups), dynamic shared memory kSmemBytes.
//     Requires N % 8 == 0, ldc % 8 == 0 and a 16-byte aligned C.
#pragma once
#include "helion/grouped_rows_walk.cuh"  // GroupedRowTiles, order_by_height, StageTile
#include "helion/grouped_rows_wgmma.cuh" // wgmma_ta, stmatrix_x4_trans

// Timing probes (test/gpu/grouped_rows.cu -DPROBE defines them to record clock64() in
// global memory; nothing here otherwise): HELION_ROWS_PROBE(event) marks a moment of the
// CTA (entry, plan, order, first load, first data, end), HELION_ROWS_PROBE_SPAN(what,
// begin) adds the cycles since the mark `begin` to a sum (epilogues, gaps between tiles).
// gemm_sm90.cuh defines them empty (its Gemm has the same probes).

namespace helion::dev {

/// The tensor maps of GemmGroupedRowsSm90 (kExact) as one kernel parameter: A {M, K}
/// with boxes of 16 (i + 1) rows x 64 k for a[i], C {M, N} with boxes of 16 (i + 1)
/// rows x 64 columns for c[i], B {groups, K, N} with boxes {1, 64, 64}; all 128-byte
/// swizzled.
struct GroupedRowMaps {
  TensorMap a[GroupedRowsShape::kMapsA], c[GroupedRowsShape::kMapsC], b;
};

/// How a tile's h rows of A travel (TMA boxes) and its rows of C leave.
enum class RowBoxes {
  k64x16, ///< A and C in boxes of 64 rows, then of 16
  kExact, ///< one box of h rows (a map per height: 16 of A, 8 of C, up to 128 rows)
  kCeil64 ///< A in boxes of 64 rows (up to 63 rows past h loaded, never used); C as k64x16
};

/// What a CTA decides before its tiles, in shared memory (the producer's 48 registers
/// cannot hold the stream-K plan beside its tile walk: ptxas spilled it), the same in
/// every CTA: per row cap (GroupedRowsShape::capOf), each priced by a warp of its own,
/// the stream-K plan of its tiles and its modelled time (capCost); then the chosen
/// cap's plan, at a fixed place (a walk reading sk[chosen] kept the index: spills).
struct RowsPlan {
  long long cost[GroupedRowsShape::kCaps];
  StreamK sk[GroupedRowsShape::kCaps];
  StreamK chosen;
};

/// BalanceWaves: the row cap chosen per launch (chooseCap), else 256; TileOverheadRows:
/// capCost's per-tile rows; Dynamic: with a workspace, each CTA takes the launch's next
/// unit when its producer is ready for one (an atomic counter), else units c, c + P, ...
template <class T, int Stages = GroupedRowsShape::kStages, RowBoxes Boxes = RowBoxes::kExact,
          bool BalanceWaves = true, int TileOverheadRows = GroupedRowsShape::kTileOverheadRows,
          bool Dynamic = true>
struct GemmGroupedRowsSm90 : GroupedRowsShape {
  static constexpr bool Exact = Boxes == RowBoxes::kExact;
  /// Maps of A and of C, by box rows: kExact 16, 32, .. (256 for A, 128 for C); else
  /// 64 and 16 (kCeil64's A: 64).
  static constexpr int kMapsA = Exact ? GroupedRowsShape::kMapsA
                                      : Boxes == RowBoxes::kCeil64 ? 1 : 2;
  static constexpr int kMapsC = Exact ? GroupedRowsShape::kMapsC : 2;
  static constexpr int kSmemBytes = smemBytes(Stages);

  template <class TOff>
  __device__ static __forceinline__ void run(const TensorMap* mapsA, const TensorMap* mapB,
                                             const TensorMap* mapsC, T* C, int64 ldc, int M, int N,
                                             int K, const TOff* offsets, int groups, bool byHeight,
                                             uint8* workspace, void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    HELION_ROWS_PROBE(entry);
    prefetch_offsets(offsets, groups); // for the pricing, after the set-up
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 1023) & ~1023ull);
    uint8* staging = base + Stages * kStageBytes;
    uint64* full = reinterpret_cast<uint64*>(staging + Consumers * kStagingBytes);
    uint64* empty = full + Stages;
    sm90::init_ring<Stages>(full, empty, 4 * Consumers, [&] {
      for (int i = 0; i < kMapsA; ++i)
        prefetch_tensormap(&mapsA[i]);
      prefetch_tensormap(mapB);
      for (int i = 0; i < kMapsC; ++i)
        prefetch_tensormap(&mapsC[i]);
    });
    __syncthreads();
    static_assert(sizeof(RowsPlan) <= kPlanBytes, "GroupedRowsShape::kPlanBytes holds RowsPlan");
    // After the barriers (16-byte aligned: the ring and staging are multiples of 1024
    // bytes, the barriers 16 Stages): the stages' tiles (vector stores), then the plan.
    static_assert(sizeof(StageTile) == kStageTileBytes, "kStageTileBytes");
    StageTile* stageTiles = reinterpret_cast<StageTile*>(empty + Stages);
    RowsPlan* plan = reinterpret_cast<RowsPlan*>(stageTiles + Stages); // 8-byte aligned
    uint32* counts = reinterpret_cast<uint32*>(reinterpret_cast<uint8*>(plan) + kPlanBytes);
    uint16* order = reinterpret_cast<uint16*>(counts + kClasses + 1);
    uint8* keys = reinterpret_cast<uint8*>(order + kMaxOrdered);
    static_assert(kCaps * 32 <= kThreads, "a warp prices each cap");
    static_assert(kClasses <= 32, "a lane prices each height class");
    static_assert(kCaps <= kClasses + 1, "price_cap's heights per cap fit the order's counts");
    if (const int warp = threadIdx.x / 32; warp < (BalanceWaves ? kCaps : 1))
      price_cap(offsets, groups, M, N, K, warp, workspace != nullptr, plan, counts);
    __syncthreads();
    const int chosen = BalanceWaves ? chooseCap(plan->sk, plan->cost) : 0;
    const int cap = capOf(chosen);
    // Tiles of one height (one group, or groups alike): the height order is the groups'
    // own order, and its barriers are saved.
    const bool heights = counts[chosen] > 1;
    if (threadIdx.x == 0)
      plan->chosen = plan->sk[chosen];
    __syncthreads();
    HELION_ROWS_PROBE(planned);
    const bool sorted = byHeight && groups <= kMaxOrdered && heights;
    const int ordered = sorted ? order_by_height(offsets, groups, M, cap, order, keys, counts) : 0;
    GroupedRowTiles<TOff> tiles(offsets, groups, M, N, cap, sorted ? order : nullptr, ordered);
    HELION_ROWS_PROBE(ordered);
    const StreamK& sk = plan->chosen;
    // setmaxnreg moves registers inside the CTA's allocation (168 a thread at 384
    // threads): a consumer waits at setmaxnreg_inc until the producer has given enough back.
    constexpr int kProducerRegs = 48, kConsumerRegs = 224;
    static_assert(128 * kProducerRegs + 128 * Consumers * kConsumerRegs <=
                      kThreads * (65536 / kThreads / 8 * 8),
                  "the producer's and consumers' registers fit the CTA's");
    if (threadIdx.x < 128) {
      sm90::setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x < 32) // a warp walks the groups, its lane 0 loads
        produce(mapsA, mapB, tiles, sk, smem_addr(base), smem_addr(stageTiles),
                Dynamic && workspace ? reinterpret_cast<int*>(workspace) + kStreamKNextUnit
                                     : nullptr);
    } else {
      sm90::setmaxnreg_inc<kConsumerRegs>();
      const int consumer = threadIdx.x / 128 - 1;
      consume(mapsC, C, ldc, N, sk, workspace, base, staging + consumer * kStagingBytes, full,
              empty, stageTiles, consumer);
    }
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
private:
  /// Row cap i (capOf(i)), priced by one warp: the tiles of all groups
  /// counted by height (lane j holds those of 8 (j + 1) rows) and priced, a class per
  /// lane (capCost's sum of classCost), then lane 0 writes their stream-K plan and cost to
  /// plan->sk[i] and plan->cost[i], and the number of heights with tiles to classes[i]
  /// (the height order's counts, free until order_by_height).
  template <class TOff>
  __device__ static void price_cap(const TOff* offsets, int groups, int M, int N, int K, int i,
                                   bool streamK, RowsPlan* plan, uint32* classes) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    unsigned mine = 0;
    for (int c = 0; c < groups; c += 32) {
      int cls = -1, count = 0;
      if (c + lane < groups) {
        int64 s, e;
        group_bounds(offsets, c + lane, M, s, e);
        const GroupRows r = GroupRows::of(e - s, capOf(i));
        cls = r.count > 0 ? r.h / GroupRows::kStep - 1 : -1;
        count = r.count;
      }
#pragma unroll
      for (int j = 0; j < kClasses; ++j) {
        const unsigned n = __reduce_add_sync(0xffffffffu, cls == j ? count : 0);
        mine += lane == j ? n : 0u;
      }
    }
    // Lane j < kClasses prices class j (classCost): its tiles come after those of the
    // taller classes j + 1 .. (a suffix sum over the lanes above).
    const int count = lane < kClasses ? static_cast<int>(mine) * ((N + BN - 1) / BN) : 0;
    int above = count; // count + the classes above
#pragma unroll
    for (int d = 1; d < kClasses; d *= 2) {
      const int v = __shfl_down_sync(0xffffffffu, above, d);
      above += lane + d < kClasses ? v : 0;
    }
    const int tiles = __shfl_sync(0xffffffffu, above, 0);
    const StreamK sk =
        StreamK::plan(tiles, static_cast<int>(gridDim.x), (K + BK - 1) / BK, Consumers, streamK);
    long long cost = lane < kClasses && count > 0
                         ? classCost(sk, above - count, count,
                                     GroupRows::kStep * (lane + 1) + TileOverheadRows)
                         : 0;
#pragma unroll
    for (int d = 16; d > 0; d /= 2)
      cost += __shfl_xor_sync(0xffffffffu, cost, d);
    const unsigned tall = __ballot_sync(0xffffffffu, lane < kClasses && mine > 0);
    if (lane == 0) {
      plan->sk[i] = sk;
      plan->cost[i] = cost;
      classes[i] = static_cast<uint32>(__popc(tall));
    }
  }

  /// A stage's word (StageTile's fields in order) in one vector store: a 32-bit address
  /// and no struct in the producer's registers.
  __device__ static __forceinline__ void store_word(uint32 addr, int row0, int end, int tnh,
                                                    int unit) {
    asm volatile("st.shared.v4.s32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(row0), "r"(end),
                 "r"(tnh), "r"(unit)
                 : "memory");
  }

  template <class TOff>
  __device__ static void produce(const TensorMap* mapsA, const TensorMap* mapB,
                                 GroupedRowTiles<TOff> tiles, const StreamK& sk, uint32 ring,
                                 uint32 stageTiles, int* nextUnit) {
    // Shared memory by 32-bit addresses (the producer's 48 registers): the ring's stages
    // from `ring`, the full and empty barriers after the consumers' staging.
    const uint32 fullBars = ring + Stages * kStageBytes + Consumers * kStagingBytes;
    const auto bar = [](uint32 addr) {
      return static_cast<uint64*>(__cvta_shared_to_generic(addr));
    };
    int s = 0;
    uint32 phase = 0;
    const bool leader = threadIdx.x == 0;
    const int units = sk.units(), ctas = static_cast<int>(gridDim.x);
    const UnitDeal deal{units, ctas}; // stream_k.cuh: unit c first, then the counter's
    for (int i = deal.first(static_cast<int>(blockIdx.x)), first = 1;; first = 0) {
      if (!first) {
        if (nextUnit) { // the next unit of the launch, whichever CTA asks first
          int v = 0;
          if (leader) {
            v = atomicAdd(nextUnit, 1);
            if (deal.lastAsk(v)) // 0 for the next launch
              atomicExch(nextUnit, 0);
          }
          i = deal.asked(__shfl_sync(0xffffffffu, v, 0));
        } else {
          i += ctas;
        }
      }
      if (i >= units)
        break;
      const StreamKUnit u = sk.unitAt(i);
      if (!tiles.seekWarp(u.tile))
        break;
      int tr, tn;
      tiles.coords(u.tile, tr, tn);
      const int h = tiles.rows.h;
      const int row = tiles.start + tr * h, g = tiles.g;
      HELION_ROWS_PROBE(firstLoad);
      // A stage per k-block; a unit without k-blocks (K = 0) gets one for its word alone.
      for (int kb = u.k0; kb < max(u.k1, u.k0 + 1); ++kb) {
        mbarrier_wait(bar(fullBars + 8 * (Stages + s)), phase ^ 1); // empty[s]
        if (leader) {
          if (kb == u.k0) // the unit's word
            store_word(stageTiles + s * kStageTileBytes, row, tiles.end,
                       tn * 64 + h / GroupRows::kStep, i);
          uint64* full = bar(fullBars + 8 * s);
          uint8* b = static_cast<uint8*>(__cvta_shared_to_generic(ring + s * kStageBytes));
          uint8* a = b + kStageBytesB;
          // A's rows as loaded: h rounded up to the boxes' 16 (kCeil64: 64).
          const int loaded = Boxes == RowBoxes::kCeil64 ? (h + 63) / 64 * 64 : (h + 15) / 16 * 16;
          if (kb == u.k1) {
            mbarrier_arrive(full);
          } else {
            mbarrier_arrive_expect_tx(full, kStageBytesB + loaded * BK * 2);
#pragma unroll
            for (int c = 0; c < BN / 64; ++c)
              tma_load_3d(b + c * BK * 128, mapB, full, tn * BN + 64 * c, kb * BK, g);
            // Rows past the group: computed, never stored.
            if constexpr (Exact) {
              tma_load_2d(a, &mapsA[loaded / 16 - 1], full, kb * BK, row);
            } else if constexpr (Boxes == RowBoxes::kCeil64) {
              for (int r = 0; r < h; r += 64)
                tma_load_2d(a + r * 128, &mapsA[0], full, kb * BK, row + r);
            } else {
              int r = 0;
              for (; r + 64 <= h; r += 64)
                tma_load_2d(a + r * 128, &mapsA[0], full, kb * BK, row + r);
              for (; r < h; r += 16)
                tma_load_2d(a + r * 128, &mapsA[1], full, kb * BK, row + r);
            }
          }
        }
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
    // The end: a word of no rows.
    mbarrier_wait(bar(fullBars + 8 * (Stages + s)), phase ^ 1);
    if (leader) {
      store_word(stageTiles + s * kStageTileBytes, 0, 0, 0, 0);
      mbarrier_arrive(bar(fullBars + 8 * s));
    }
  }

  __device__ static __forceinline__ void consume(const TensorMap* mapsC, T* C, int64 ldc, int N,
                                                 const StreamK& sk, uint8* workspace, uint8* base,
                                                 uint8* staging, uint64* full, uint64* empty,
                                                 const StageTile* stageTiles, int consumer) {
    float acc[128];
    int s = 0;
    uint32 phase = 0;
    const int tid = threadIdx.x % 128;
    for (;;) { // the units the producer took, each named in the stage of its first k-block
      mbarrier_wait(&full[s], phase);
      const StageTile t = stageTiles[s];
      const int h = t.tnh % 64 * GroupRows::kStep, tn = t.tnh / 64;
      if (h == 0)
        break; // the end
      const StreamKUnit u = sk.unitAt(t.unit);
      if (u.k1 <= u.k0) { // no k-blocks: the stage held the word alone
        if (tid % 32 == 0)
          mbarrier_arrive(&empty[s]);
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
      const int64 row0 = t.row0;
      const int valid = min(h, t.end - t.row0);
      const int col0 = tn * BN + consumer * 64;
      static_assert(GroupRows::kStep == 8, "a case per multiple of 8 rows");
      switch (h / 8) {
#define HELION_ROWS_CASE(i)                                                                      \
  case i:                                                                                        \
    mainloop<8 * i>(acc, u, base, full, empty, s, phase, consumer, tid);                         \
    break;
        HELION_ROWS_CASE(1) HELION_ROWS_CASE(2) HELION_ROWS_CASE(3) HELION_ROWS_CASE(4)
        HELION_ROWS_CASE(5) HELION_ROWS_CASE(6) HELION_ROWS_CASE(7) HELION_ROWS_CASE(8)
        HELION_ROWS_CASE(9) HELION_ROWS_CASE(10) HELION_ROWS_CASE(11) HELION_ROWS_CASE(12)
        HELION_ROWS_CASE(13) HELION_ROWS_CASE(14) HELION_ROWS_CASE(15) HELION_ROWS_CASE(16)
        HELION_ROWS_CASE(17) HELION_ROWS_CASE(18) HELION_ROWS_CASE(19) HELION_ROWS_CASE(20)
        HELION_ROWS_CASE(21) HELION_ROWS_CASE(22) HELION_ROWS_CASE(23) HELION_ROWS_CASE(24)
        HELION_ROWS_CASE(25) HELION_ROWS_CASE(26) HELION_ROWS_CASE(27) HELION_ROWS_CASE(28)
        HELION_ROWS_CASE(29) HELION_ROWS_CASE(30) HELION_ROWS_CASE(31) HELION_ROWS_CASE(32)
#undef HELION_ROWS_CASE
      default: __trap();
      }
      // A piece's partials: one copy for all heights, h rows rounded up to 64 (guards
      // of 64 rows; finer ones made ptxas spill).
      if (u.slot >= 0 && !sm90::stream_k_reduce<MaxH / 8, kStreamKSlotQuads, Consumers>(
                             sk, u, acc, tid, consumer, workspace, (h / 8 + 7) / 8 * 8))
        continue; // another piece of this split tile adds the partials and stores
      store(acc, h, mapsC, C, ldc, N, row0, valid, col0, staging, consumer, tid);
    }
    if (tid == 0)
      tma_store_wait<0>();
    HELION_ROWS_PROBE(end);
  }

  /// One unit's k-loop (a tile of H rows or a piece of one: k-blocks [u.k0, u.k1); each
  /// k-block's 4 k16 steps, one wgmma each) into acc[0 .. H / 2). Only this part has a
  /// copy per height (wgmma's N is H); the store after it is one copy for all heights
  /// (store): 32 copies of the whole tile made the kernel's code 382 KB (the plain
  /// matmul's: 11 KB).
  template <int H>
  __device__ static __forceinline__ void mainloop(float (&acc)[128], const StreamKUnit& u,
                                                  uint8* base, uint64* full, uint64* empty,
                                                  int& s, uint32& phase, int consumer, int tid) {
    using namespace sm90;
    int prev = 0;
    if (u.k1 <= u.k0) // no k-blocks (K = 0): the product is zero
#pragma unroll
      for (int r = 0; r < H / 2; ++r)
        acc[r] = 0.f;
    for (int kb = u.k0; kb < u.k1; ++kb) {
      mbarrier_wait(&full[s], phase);
      if (kb == u.k0) {
        HELION_ROWS_PROBE(firstData);
        HELION_ROWS_PROBE_SPAN(gaps, epilogueEnd);
      }
      // The stage's addresses through warp_uniform (redux.sync): without it ptxas built
      // the descriptors in per-thread registers and moved each to uniform ones before
      // its wgmma (77-78 SASS instructions and 16 R2UR per k-block and warp; with it
      // 55-58 and 2, scripts/sass_loops.py). Routing the stage, the unit's k-blocks or
      // the consumer's index through it instead changed nothing.
      const uint32 b = static_cast<uint32>(
          warp_uniform(static_cast<int>(smem_addr(base + s * kStageBytes) + consumer * BK * 128)));
      const uint32 a = static_cast<uint32>(
          warp_uniform(static_cast<int>(smem_addr(base + s * kStageBytes + kStageBytesB))));
      const uint64 descA = desc_sw128(b, BK * 128, 1024); // B[g]^T: N-major
      const uint64 descB = desc_sw128(a, 16, 1024);       // A's rows: K-major
      fence<H>(acc);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
        wgmma_ta<H, T>(acc, descA + ((kk * 16 * 128) >> 4), descB + ((kk * 32) >> 4),
                       kb > u.k0 || kk > 0);
      wgmma_commit();
      fence<H>(acc);
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
    fence<H>(acc);
    if (u.k1 > u.k0 && tid % 32 == 0)
      mbarrier_arrive(&empty[prev]);
  }

  /// The transposed store of this consumer's 64 columns of a tile of h rows (a whole
  /// tile, or the last piece of a split one to arrive), `valid` of them inside the
  /// group: code for MaxH rows, each block of 8 rows guarded by h (the same in the
  /// warpgroup).
  __device__ static __forceinline__ void store(float (&acc)[128], int h, const TensorMap* mapsC,
                                               T* C, int64 ldc, int N, int64 row0, int valid,
                                               int col0, uint8* staging, int consumer, int tid) {
    using namespace sm90;
    HELION_ROWS_PROBE(epilogueBegin);

    // acc register r: column 16 warp + lane / 4 + 8 ((r / 2) % 2) of this consumer's
    // 64, row 8 (r / 4) + 2 (lane % 4) + r % 2 of the tile (WgmmaAcc, M and N swapped).
    // stmatrix .trans stores each 8 x 8 block (8 columns x 8 rows) as 8 staged rows of
    // 16 bytes, into a 128-byte-swizzled buffer of 128 rows (row r, 16-byte chunk c at
    // r * 128 + ((c ^ (r % 8)) << 4)), in passes of 128 rows; each pass leaves as TMA
    // stores of 64-row and then 16-row boxes (mapsC[0], mapsC[1]), its last rows inside
    // the group (fewer than 16) as 16-byte stores.
    const int warp = tid / 32, lane = tid % 32, q = lane / 8; // lane addresses matrix q
    const uint32 st = smem_addr(staging);
#pragma unroll
    for (int p = 0; p < MaxH / kStagingRows; ++p) {
      if (p * kStagingRows >= h)
        break;
      if (tid == 0)
        tma_store_wait<0>(); // the previous pass's boxes have left the buffer
      named_barrier_sync(1 + consumer, 128);
      constexpr int kBlocks = kStagingRows / 8;
#pragma unroll
      for (int j = kBlocks * p; j < kBlocks * (p + 1); j += 2) {
        if (j >= h / 8)
          break;
        const int rowIn = (j - kBlocks * p + q / 2) * 8 + lane % 8;
        const int chunk = 2 * warp + q % 2;
        const uint32 addr = st + rowIn * 128 + ((chunk ^ (lane % 8)) << 4);
        // An odd h / 8: the last pair's second block (rows past h) stores zeros.
        const bool second = j + 1 < h / 8;
        stmatrix_x4_trans(addr, pack2_rn<T>(acc[4 * j], acc[4 * j + 1]),
                          pack2_rn<T>(acc[4 * j + 2], acc[4 * j + 3]),
                          second ? pack2_rn<T>(acc[4 * j + 4], acc[4 * j + 5]) : 0u,
                          second ? pack2_rn<T>(acc[4 * j + 6], acc[4 * j + 7]) : 0u);
      }
      fence_proxy_async_shared();
      named_barrier_sync(1 + consumer, 128);
      const int lo = kStagingRows * p, hi = min(lo + kStagingRows, valid);
      const int boxed = hi > lo ? lo + (hi - lo) / 16 * 16 : lo;
      if (tid == 0) {
        if constexpr (Exact) {
          if (boxed > lo)
            tma_store_2d(&mapsC[(boxed - lo) / 16 - 1], staging, col0,
                         static_cast<int32>(row0 + lo));
        } else {
          int r = lo;
          for (; r + 64 <= boxed; r += 64)
            tma_store_2d(&mapsC[0], staging + (r - lo) * 128, col0, static_cast<int32>(row0 + r));
          for (; r < boxed; r += 16)
            tma_store_2d(&mapsC[1], staging + (r - lo) * 128, col0, static_cast<int32>(row0 + r));
        }
        tma_store_commit();
      }
      const int r = boxed + tid / 8, c = tid % 8;
      if (r < hi && col0 + 8 * c < N) {
        const int in = r - lo;
        const uint4 v = *reinterpret_cast<const uint4*>(staging + in * 128 + ((c ^ (in % 8)) << 4));
        *reinterpret_cast<uint4*>(C + (row0 + r) * ldc + col0 + 8 * c) = v;
      }
    }
    HELION_ROWS_PROBE_SPAN(epilogues, epilogueBegin);
    HELION_ROWS_PROBE(epilogueEnd);
  }

  template <int H> __device__ static __forceinline__ void fence(float (&acc)[128]) {
#pragma unroll
    for (int r = 0; r < H / 2; ++r)
      sm90::fence_operand(acc[r]);
  }
#endif // __CUDA_ARCH__ >= 900
};

} // namespace helion::dev
