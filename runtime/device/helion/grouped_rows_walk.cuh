// helion/grouped_rows_walk.cuh: how the row-fitting grouped GEMM (gemm_grouped_rows.cuh)
// finds its tiles: the flat numbering of all groups' row tiles and its walk
// (GroupedRowTiles::seekWarp, by a warp), the groups' order by tile
// height (order_by_height), and the word a ring stage carries from the producer to the
// consumers (StageTile).
#pragma once
#include "helion/gemm_grouped.cuh"      // group_bounds, GemmTiles
#include "helion/grouped_rows_plan.cuh" // GroupRows

namespace helion::dev {

/// The flat numbering of all groups' tiles: group g's count x tilesN tiles follow
/// those of groups 0 .. g-1; inside a group, in bands of 8 row tiles, each column tile
/// by column tile (the tiles of one column tile share its B panel). seekWarp(t), by a
/// whole warp, moves forward to tile t's group (t must not decrease between calls), up
/// to 32 groups per round trip of global loads; coords gives its row tile and column.
template <class TOff> struct GroupedRowTiles {
  const TOff* offsets;
  int M, tilesN;
  /// The groups with tiles in the order to take them (a shared-memory uint16 array), or
  /// 0: by index. A 32-bit address: the producer's 48 registers hold the walk.
  uint32 order;
  int listed; ///< how many groups `order` lists, else the groups
  int cap;    ///< the tallest row tile (GroupRows::of)
  int g = -1, at = -1, first = 0, count = 0;
  int start = 0, end = 0; ///< the group's rows, clamped to [0, M] (M is an int)
  GroupRows rows{0, 16};

  __device__ __forceinline__ GroupedRowTiles(const TOff* o, int groups_, int M_, int N, int cap_,
                                             const uint16* order_, int ordered_)
      : offsets(o), M(M_), tilesN((N + 127) / 128), order(order_ ? smem_addr(order_) : 0u),
        listed(order_ ? ordered_ : groups_), cap(cap_) {}

  /// Called by all 32 lanes of a warp (the same t): the next group first (one round
  /// trip of loads: a CTA's next tile is mostly in it); past it, lane l looks at the
  /// group l + 1 places further (its tiles), a prefix sum of their tiles finds the group
  /// of tile t, and every lane reads that group's rows again (fewer registers than
  /// passing them over: the producer has 48).
  __device__ __forceinline__ bool seekWarp(int t) {
    const int lane = static_cast<int>(threadIdx.x % 32);
    while (t >= first + count) {
      first += count;
      count = 0;
      if (at + 1 >= listed)
        return false;
      groupAt(++at, g, start, end, rows);
      count = rows.count * tilesN;
      if (t < first + count)
        break;
      first += count;
      count = 0;
      for (;;) {
        if (at + 1 >= listed)
          return false;
        const int pos = at + 1 + lane;
        int n = 0;
        if (pos < listed) {
          int gl, s, e;
          GroupRows r;
          groupAt(pos, gl, s, e, r);
          n = r.count * tilesN;
        }
        int upTo = n; // the tiles of this lane's group and of those before it
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
          const int v = __shfl_up_sync(0xffffffffu, upTo, d);
          upTo += lane >= d ? v : 0;
        }
        const unsigned holds = __ballot_sync(0xffffffffu, pos < listed && t < first + upTo);
        if (holds == 0) {
          first += __shfl_sync(0xffffffffu, upTo, 31);
          at += 32;
          continue;
        }
        const int j = __ffs(holds) - 1;
        at += 1 + j;
        count = __shfl_sync(0xffffffffu, n, j);
        first += __shfl_sync(0xffffffffu, upTo, j) - count;
        groupAt(at, g, start, end, rows); // again, in every lane (the loads hit L1)
        break;
      }
    }
    return true;
  }
  /// Tile t's row tile and column tile in its group, in bands of kBand row tiles swept
  /// column tile by column tile (GemmTiles' order): a group of at most kBand row tiles
  /// takes them row tile by row tile per column tile; a larger one keeps one band's rows
  /// of A (8 x 256 rows: 16 MB at K 4096) in L2 while B's column tiles go by, where a
  /// wave over all its row tiles read A from DRAM again each wave.
  static constexpr int kBand = 8;
  __device__ __forceinline__ void coords(int t, int& tr, int& tn) const {
    GemmTiles{rows.count, tilesN, kBand}.coords(t - first, tr, tn);
  }

private:
  /// The group at place `pos` of the walk, its rows (clamped to [0, M]) and their tiles.
  __device__ __forceinline__ void groupAt(int pos, int& gp, int& s, int& e, GroupRows& r) const {
    gp = order ? *static_cast<const uint16*>(__cvta_shared_to_generic(order + 2 * pos)) : pos;
    int64 s64, e64;
    group_bounds(offsets, gp, M, s64, e64);
    s = static_cast<int>(s64);
    e = static_cast<int>(e64);
    r = GroupRows::of(e - s, cap);
  }
};

/// Fills order[] with the groups that have tiles (of at most `cap` rows), in order of
/// decreasing tile height, by index within a height (the same order in every CTA: tile
/// t must be the same tile in all), using keys[groups] and counts[kClasses + 1]; returns how
/// many. Called by every thread of the block (barriers inside); groups <= the order's
/// room.
template <class TOff>
__device__ int order_by_height(const TOff* offsets, int groups, int M, int cap, uint16* order,
                               uint8* keys, uint32* counts) {
  constexpr int kClasses = GroupedRowsShape::kClasses, kStep = GroupRows::kStep;
  if (threadIdx.x <= kClasses)
    counts[threadIdx.x] = 0;
  __syncthreads();
  for (int g = threadIdx.x; g < groups; g += blockDim.x) {
    int64 start, end;
    group_bounds(offsets, g, M, start, end);
    const GroupRows r = GroupRows::of(end - start, cap);
    // 256 rows first, empty groups last
    const int k = r.count == 0 ? kClasses : kClasses - r.h / kStep;
    keys[g] = static_cast<uint8>(k);
    atomicAdd(&counts[k], 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32 sum = 0;
    for (int k = 0; k <= kClasses; ++k) {
      const uint32 c = counts[k];
      counts[k] = sum;
      sum += c;
    }
  }
  __syncthreads();
  if (threadIdx.x < 32) { // one warp places 32 groups at a time, each after those before it
    const int lane = threadIdx.x;
    for (int c = 0; c < groups; c += 32) {
      const int g = c + lane, k = g < groups ? keys[g] : kClasses;
      const unsigned same = __match_any_sync(0xffffffffu, k);
      const int rank = __popc(same & ((1u << lane) - 1));
      if (k < kClasses)
        order[counts[k] + rank] = static_cast<uint16>(g);
      __syncwarp();
      if (k < kClasses && rank == 0)
        counts[k] += __popc(same);
      __syncwarp();
    }
  }
  __syncthreads();
  return static_cast<int>(counts[kClasses - 1]); // after placing: where the empty class begins
}

/// The tile whose first k-block a ring stage holds, written by the producer before the
/// stage's loads (the full barrier's completion publishes it): the consumers take their
/// tiles from it instead of walking the groups (global loads of the offsets) themselves.
struct StageTile {
  int row0; ///< the tile's first row
  int end;  ///< its group's end (rows past it are computed, never stored)
  int tnh;  ///< its column tile tn and rows h as tn * 64 + h / 8 (tn < 2^24: N is an int);
            ///< 0: no more units
  int unit; ///< the unit (StreamK::unitAt: a whole tile or a piece of one)
};

} // namespace helion::dev
