// The tma_store epilogue's slices (runtime/device/helion/gemm_smem.cuh, tma_store_parts:
// Gemm::kTmaParts, and the launcher's shared memory) over every sm90 tile the matmul
// rules allow (BM 64-256, BN 16-256, 2-8 stages of 16-bit or 8-bit operands, an A
// prologue's staged tensor or not) and every C element size: the slices it takes fit
// next to the ring in whole 128-byte boxes and are the fewest that do; 0 only where no
// slicing does; and wherever the rule before session 38 (the fewest slices that fit, 4
// when none did) gave whole boxes, the same slices (so every tile that compiled then is
// unchanged).
#include <initializer_list>

#include "helion/gemm_smem.cuh"
#include "expect.h"

using helion::dev::kSm90MaxSmem;
using helion::dev::tma_store_parts;

static bool fits(int ring, int tile, int bn, int size, int p) {
  return ring + tile / p <= kSm90MaxSmem && bn % (p * (128 / size)) == 0;
}

int main() {
  int checked = 0, none = 0;
  for (int bm = 64; bm <= 256; bm += 64)
    for (int bn = 16; bn <= 256; bn += 16)
      for (int stages = 2; stages <= 8; ++stages)
        for (int staged = 0; staged <= 1; ++staged)
          for (int size : {1, 2, 4}) {
            const int ring = helion::dev::gemm_ring_bytes(bm, bn, stages, staged);
            if (ring > kSm90MaxSmem)
              continue;
            const int tile = bm * bn * size, p = tma_store_parts(ring, tile, bn, size);
            ++checked;
            EXPECT(p == 0 || p == 1 || p == 2 || p == 4, " %dx%d s%d size %d: %d", bm, bn,
                   stages, size, p);
            if (p > 0)
              EXPECT(fits(ring, tile, bn, size, p), " %dx%d s%d size %d: %d slices", bm, bn,
                     stages, size, p);
            for (int q = 1; q <= 4 && (p == 0 || q < p); q *= 2)
              EXPECT(!fits(ring, tile, bn, size, q), " %dx%d s%d size %d: %d slices, %d fit",
                     bm, bn, stages, size, p, q);
            none += p == 0;
            const int before = ring + tile <= kSm90MaxSmem ? 1 : ring + tile / 2 <= kSm90MaxSmem ? 2 : 4;
            if (fits(ring, tile, bn, size, before))
              EXPECT(p == before, " %dx%d s%d size %d: %d slices, %d before", bm, bn, stages,
                     size, p, before);
          }
  // The tile the GPU fuzzer found: 256 x 64, 16-bit C, 5 stages.
  EXPECT(tma_store_parts(205904, 256 * 64 * 2, 64, 2) == 0, " 256x64 s5 f16");
  // The default matmul tile (128 x 256, 4 stages): 2 slices of bf16, 4 of f32.
  EXPECT(tma_store_parts(197696, 128 * 256 * 2, 256, 2) == 2, " 128x256 s4 bf16");
  EXPECT(tma_store_parts(197696, 128 * 256 * 4, 256, 4) == 4, " 128x256 s4 f32");
  std::printf("%d tiles x element sizes, %d without slices%s\n", checked, none,
              bad ? "" : ": ok");
  return bad == 0 ? 0 : 1;
}
