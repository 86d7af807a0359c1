// helion/grouped_rows_plan.cuh: the integer part of the row-fitting grouped GEMM
// (gemm_grouped_rows.cuh): how a group's rows split into row tiles, and the shared
// memory the kernel needs, which its launcher (MatmulLauncher.cpp) computes too.
//
// Host-compilable (integer arithmetic only).
#pragma once
#include "helion/stream_k.cuh" // integer arithmetic only, as this file

#ifndef __CUDACC__
#define HELION_GR_FN inline
#else
#define HELION_GR_FN __host__ __device__ __forceinline__
#endif

namespace helion::dev {

/// The row tiles of one group of `m` rows: `count` tiles of `h` rows, h a multiple
/// of kStep = 8 (wgmma's N step) up to `cap` (a multiple of 16, at most 256): t =
/// ceil(m / cap) tiles of m / t rows rounded up to 8, then count = ceil(m / h). At most 7
/// rows past the group's end per tile are computed (a 128-row tile computes up to 127).
/// m = 1025: 5 tiles of 208 rows (1040 computed); m = 1836: 8 of 232 (1856); m = 1688:
/// 7 of 248 (1736); m = 1664: 7 of 240, with cap 224 8 of 208; m = 100: one of 104.
struct GroupRows {
  static constexpr int kStep = 8;
  int count, h;
  HELION_GR_FN static GroupRows of(long long m, int cap = 256) {
    if (m <= 0)
      return {0, 16};
    // 32-bit divisions where they do (a kernel plans every group under 9 caps).
    return m < (1LL << 30) ? split<int>(static_cast<int>(m), cap) : split<long long>(m, cap);
  }

private:
  template <class I> HELION_GR_FN static GroupRows split(I m, I cap) {
    const I t = (m + cap - 1) / cap;
    const int h = static_cast<int>(((m + t - 1) / t + kStep - 1) / kStep * kStep);
    return {static_cast<int>((m + h - 1) / h), h};
  }
};

/// The kernel's fixed shape: 128 output columns per tile, up to 256 rows, k-blocks
/// of 64, two consumer warpgroups and a producer; kStages ring stages in the product.
struct GroupedRowsShape {
  static constexpr int BK = 64, BN = 128, MaxH = 256, Consumers = 2, kStages = 4;
  static constexpr int kThreads = 128 * (1 + Consumers);
  /// The launcher runs this kernel for groups of more than MaxH rows on average, and
  /// below kLargeAverageRows: groups as large waste little in the BM x BN kernel's
  /// tiles (at most 127 rows a group, 3 % at 4096), which, having no pricing, starts
  /// its tiles sooner (docs/gemm.md, "Few large groups").
  static constexpr int kLargeAverageRows = 4096;
  static constexpr int kStageBytesB = BK * BN * 2;   ///< B[g]'s k-block: two [64 k][64 n] boxes
  static constexpr int kStageBytesA = MaxH * BK * 2; ///< up to 256 rows of A's k-block
  static constexpr int kStageBytes = kStageBytesB + kStageBytesA;
  static constexpr int kStagingRows = 128;                 ///< rows of C staged at a time
  static constexpr int kStagingBytes = kStagingRows * 128; ///< per consumer: 64 columns
  /// The tensor maps of A and of C, one per box height: 16, 32, .. 256 rows for A and
  /// .. 128 for C (a tile's rows travel in one box).
  static constexpr int kMapsA = MaxH / 16, kMapsC = kStagingRows / 16;
  /// At most this many groups are taken by height (504: the shared memory holds no more).
  static constexpr int kMaxOrdered = 504;
  /// Stream-K (stream_k.cuh): a consumer thread's partial sums of a piece, in float4s
  /// (its accumulator of up to 256 rows x 64 columns / 128 threads), and a CTA's slot
  /// of partials in the workspace (both consumers).
  static constexpr int kStreamKSlotQuads = MaxH / 8;
  static constexpr int kStreamKSlotBytes = Consumers * 128 * kStreamKSlotQuads * 16;

  static constexpr int kPlanBytes = 272; ///< room for the kernel's plan (RowsPlan)

  /// The row caps a kernel chooses from (chooseCap): capOf(i) for i < kCaps, 256 .. 128.
  static constexpr int kCaps = 9;
  HELION_GR_FN static constexpr int capOf(int i) { return MaxH - 16 * i; }
  /// Tile heights 8 (j + 1) for j < kClasses (GroupRows::kStep; a lane of a warp each).
  static constexpr int kClasses = MaxH / GroupRows::kStep;
  /// The modelled cost of a tile beside its rows, in rows (loading B[g]'s panel, the
  /// pipeline's start and the store; capCost). 64 puts the H200's measured gains of
  /// smaller caps (one group of 1664 rows: x0.89-0.91 at cap 224) and losses (random
  /// draws whose few 256-row tiles a cap of 240 spread: x1.02) on the right side.
  static constexpr int kTileOverheadRows = 64;

  /// The modelled time, in k-block rows, of the tiles of `plan` (StreamK::plan of one
  /// cap's tiles), byClass[j] of them of 8 (j + 1) rows, dealt in order of decreasing
  /// height (tile t to CTA t % ctas): CTA 0 takes the tallest tile of each wave, so a
  /// whole wave costs its first tile's rows plus kTileOverheadRows per k-block, and
  /// the last one (StreamK::lastWaveBlocks) as much per k-block of its first tile.
  /// `overhead`: the per-tile rows (kTileOverheadRows; scripts/grouped_rows_check.sh
  /// builds other values to measure them).
  HELION_GR_FN static long long capCost(const StreamK& plan, const int* byClass,
                                        int overhead = kTileOverheadRows) {
    long long cost = 0;
    int start = 0;
    for (int j = kClasses - 1; j >= 0; --j) {
      cost += classCost(plan, start, byClass[j], GroupRows::kStep * (j + 1) + overhead);
      start += byClass[j];
    }
    return cost;
  }

  /// One height class's part of capCost: `count` tiles costing `rows` rows per k-block
  /// each (their height plus the overhead), at places [start, start + count) of the
  /// height order. The kernel's warp prices its classes in parallel, a lane each.
  HELION_GR_FN static long long classCost(const StreamK& plan, int start, int count, int rows) {
    const int ctas = plan.ctas, full = plan.tiles / ctas, last = full * ctas;
    const int end = start + count;
    const int w0 = (start + ctas - 1) / ctas, w1 = (end + ctas - 1) / ctas; // wave starts
    long long cost = static_cast<long long>((w1 < full ? w1 : full) - (w0 < full ? w0 : full)) *
                     plan.kBlocks * rows;
    if (plan.tiles > last && start <= last && last < end)
      cost += static_cast<long long>(plan.lastWaveBlocks()) * rows;
    return cost;
  }

  /// The row cap that balances the persistent grid's waves, as an index i (capOf(i)),
  /// given per cap the stream-K plan of its tiles and its capCost: of the caps whose
  /// tiles take no more waves than cap 256's, the cheapest; ties keep the taller cap.
  /// Example: one group of 1664 rows, N 4096, K 4096, 132 CTAs: cap 256 makes 7 x 32 =
  /// 224 tiles of 240 rows (1.70 waves, the second 70 % full and not split: cost
  /// 2 x 64 x (240 + 64)), cap 224 256 tiles of 208 (1.94 waves: 2 x 64 x (208 + 64)).
  HELION_GR_FN static int chooseCap(const StreamK* plans, const long long* costs) {
    const long long room =
        static_cast<long long>((plans[0].tiles + plans[0].ctas - 1) / plans[0].ctas) *
        plans[0].ctas;
    int best = 0;
    for (int i = 1; i < kCaps; ++i)
      if (plans[i].tiles <= room && costs[i] < costs[best])
        best = i;
    return best;
  }

  /// A stage's tile, as the producer tells the consumers (16 bytes a stage).
  static constexpr int kStageTileBytes = 16;

  /// Dynamic shared memory of `stages` ring stages: the ring, the consumers' staging,
  /// the barriers, the stages' tiles, the plan (the caps' prices), the height order's
  /// counts (a class each and one for empty groups), order and keys (1024 for alignment).
  static constexpr int smemBytes(int stages) {
    return 1024 + stages * kStageBytes + Consumers * kStagingBytes + 2 * stages * 8 +
           (kClasses + 1) * 4 + kMaxOrdered * 3 + kPlanBytes + stages * kStageTileBytes;
  }
};

} // namespace helion::dev

#undef HELION_GR_FN
