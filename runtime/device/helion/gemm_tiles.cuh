// helion/gemm_tiles.cuh: the tile scheduler shared by gemm_sm90.cuh and
// gemm_sm80.cuh (and any kernel that walks output tiles in L2-friendly order).
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// Maps a linear tile index to (tile row, tile column) in Triton's grouped
/// order: `groupM` rows of tiles are swept column by column, so that tiles
/// running together share rows of A and columns of B in L2. Example: 32 x 16
/// tiles, groupM 8: t = 0..7 are rows 0..7 of column 0, t = 8 is row 0 of
/// column 1, ..., t = 128 is row 8 of column 0.
struct GemmTiles {
  int tilesM, tilesN, groupM;

  __device__ __forceinline__ int count() const { return tilesM * tilesN; }
  __device__ __forceinline__ void coords(int t, int& tm, int& tn) const {
    const int perGroup = groupM * tilesN;
    const int group = t / perGroup;
    const int firstM = group * groupM;
    const int rows = tilesM - firstM < groupM ? tilesM - firstM : groupM;
    const int local = t - group * perGroup;
    tm = firstM + local % rows;
    tn = local / rows;
  }
};

} // namespace helion::dev
