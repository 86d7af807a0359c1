// helion/grouped_rows_plan.cuh: the integer part of the row-fitting grouped GEMM
// (gemm_grouped_rows.cuh): how a group's rows split into row tiles, and the shared
// memory the kernel needs, which its launcher (MatmulLauncher.cpp) computes too.
//
// Host-compilable (integer arithmetic only).
#pragma once
// No includes: integer arithmetic only.

#ifndef __CUDACC__
#define HELION_GR_FN inline
#else
#define HELION_GR_FN __host__ __device__ __forceinline__
#endif

namespace helion::dev {

/// The row tiles of one group of `m` rows: `count` tiles of `h` rows, h a multiple
/// of 16 up to 256: t = ceil(m / 256) tiles of m / t rows rounded up to 16, then
/// count = ceil(m / h). At most 15 rows past the group's end per tile are computed
/// (a 128-row tile computes up to 127). m = 1025: 5 tiles of 208 rows (1040
/// computed); m = 1836: 8 of 240.
struct GroupRows {
  int count, h;
  HELION_GR_FN static GroupRows of(long long m) {
    if (m <= 0)
      return {0, 16};
    const long long t = (m + 255) / 256;
    const int h = static_cast<int>(((m + t - 1) / t + 15) / 16 * 16);
    return {static_cast<int>((m + h - 1) / h), h};
  }
};

/// The kernel's fixed shape: 128 output columns per tile, up to 256 rows, k-blocks
/// of 64, two consumer warpgroups and a producer; kStages ring stages in the product.
struct GroupedRowsShape {
  static constexpr int BK = 64, BN = 128, MaxH = 256, Consumers = 2, kStages = 4;
  static constexpr int kThreads = 128 * (1 + Consumers);
  static constexpr int kStageBytesB = BK * BN * 2;   ///< B[g]'s k-block: two [64 k][64 n] boxes
  static constexpr int kStageBytesA = MaxH * BK * 2; ///< up to 256 rows of A's k-block
  static constexpr int kStageBytes = kStageBytesB + kStageBytesA;
  static constexpr int kStagingRows = 128;                 ///< rows of C staged at a time
  static constexpr int kStagingBytes = kStagingRows * 128; ///< per consumer: 64 columns
  /// The tensor maps of A and of C, one per box height: 16, 32, .. 256 rows for A and
  /// .. 128 for C (a tile's rows travel in one box).
  static constexpr int kMapsA = MaxH / 16, kMapsC = kStagingRows / 16;
  static constexpr int kMaxOrdered = 512; ///< at most this many groups are taken by height
  /// Stream-K (stream_k.cuh): a consumer thread's partial sums of a piece, in float4s
  /// (its accumulator of up to 256 rows x 64 columns / 128 threads), and a CTA's slot
  /// of partials in the workspace (both consumers).
  static constexpr int kStreamKSlotQuads = MaxH / 8;
  static constexpr int kStreamKSlotBytes = Consumers * 128 * kStreamKSlotQuads * 16;

  static constexpr int kPlanBytes = 32; ///< room for the stream-K plan (StreamK)

  /// Dynamic shared memory of `stages` ring stages: the ring, the consumers' staging,
  /// the barriers, the height order's counts, order and keys, the stream-K plan (1024
  /// for alignment).
  static constexpr int smemBytes(int stages) {
    return 1024 + stages * kStageBytes + Consumers * kStagingBytes + 2 * stages * 8 + 17 * 4 +
           kMaxOrdered * 3 + kPlanBytes;
  }
};

} // namespace helion::dev

#undef HELION_GR_FN
