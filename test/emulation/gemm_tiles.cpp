// The tile order of runtime/device/helion/gemm_tiles.cuh (GemmTiles::coords: Triton's
// grouped order) compiled for the CPU, as the matmul templates and the row-fitting
// grouped GEMM's walk (grouped_rows_walk.cuh: bands of 8 row tiles inside a group) use
// it: over grids of 1-40 x 1-24 tiles and groupM 1, 3 and 8, every tile comes exactly
// once; a grid of at most groupM rows of tiles goes row by row inside each column (the
// order the row-fitting kernel had before its bands); each band of groupM rows (the last
// one shorter) is finished before the next begins, column by column; and the documented
// example holds.
#include <cstdio>
#include <cstring>
#include <vector>
#define __device__
#define __host__
#define __forceinline__ inline
#define asm(...) ((void)0) // the f16/bf16 conversions of types.cuh, unused here
// The bit casts types.cuh and gemm_tiles.cuh's fragment helpers name (unused here).
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
#include "helion/gemm_tiles.cuh"
#include "expect.h"

using helion::dev::GemmTiles;

int main() {
  for (int groupM : {1, 3, 8})
    for (int tilesM = 1; tilesM <= 40; ++tilesM)
      for (int tilesN = 1; tilesN <= 24; ++tilesN) {
        const GemmTiles g{tilesM, tilesN, groupM};
        std::vector<int> seen(tilesM * tilesN, 0);
        int lastBand = 0;
        for (int t = 0; t < g.count(); ++t) {
          int tm = -1, tn = -1;
          g.coords(t, tm, tn);
          const bool inside = tm >= 0 && tm < tilesM && tn >= 0 && tn < tilesN;
          EXPECT(inside, " %dx%d/%d: t=%d at (%d, %d)", tilesM, tilesN, groupM, t, tm, tn);
          if (!inside)
            continue;
          ++seen[tm * tilesN + tn];
          const int band = tm / groupM, rows = tilesM - band * groupM < groupM
                                                    ? tilesM - band * groupM
                                                    : groupM;
          EXPECT(band >= lastBand, " %dx%d/%d: t=%d goes back to band %d", tilesM, tilesN,
                 groupM, t, band);
          lastBand = band;
          const int local = t - band * groupM * tilesN; // column by column in the band
          EXPECT(tn == local / rows && tm == band * groupM + local % rows,
                 " %dx%d/%d: t=%d at (%d, %d)", tilesM, tilesN, groupM, t, tm, tn);
          if (tilesM <= groupM)
            EXPECT(tm == t % tilesM && tn == t / tilesM, " %dx%d/%d: t=%d", tilesM, tilesN,
                   groupM, t);
        }
        for (int i = 0; i < tilesM * tilesN; ++i)
          EXPECT(seen[i] == 1, " %dx%d/%d: tile %d seen %d times", tilesM, tilesN, groupM, i,
                 seen[i]);
      }
  // gemm_tiles.cuh's example: 32 x 16 tiles, groupM 8.
  int tm = -1, tn = -1;
  const GemmTiles ex{32, 16, 8};
  ex.coords(7, tm, tn);
  EXPECT(tm == 7 && tn == 0, " t=7: (%d, %d)", tm, tn);
  ex.coords(8, tm, tn);
  EXPECT(tm == 0 && tn == 1, " t=8: (%d, %d)", tm, tn);
  ex.coords(128, tm, tn);
  EXPECT(tm == 8 && tn == 0, " t=128: (%d, %d)", tm, tn);
  std::printf("gemm tiles: %d failures\n", bad);
  return bad == 0 ? 0 : 1;
}
