// The row tiles of runtime/device/helion/grouped_rows_plan.cuh (the row-fitting grouped
// GEMM) compiled for the CPU: for every group size m up to 70000, GroupRows::of(m)
// gives tiles whose heights are multiples of 8 from 8 to 256, that cover the group's
// rows with none empty, in at most ceil(m / 256) tiles, computing fewer than 8 rows
// past the group's end per tile, and so under every smaller cap (GroupRows::of(m, cap));
// the documented examples hold; chooseCap's choices (the documented one, none that takes
// more waves than cap 256 over random draws); and the kernel's shared memory fits the
// 227 KB an sm_90a CTA may take.
#include <cstdio>
#include <random>
#include <vector>

#include "helion/grouped_rows_plan.cuh"
#include "expect.h"

using helion::dev::GroupedRowsShape;
using helion::dev::GroupRows;

/// The caps priced as the kernel's warps price them (a plan and capCost per cap) for
/// `sizes` with `tilesN` column tiles.
static void priceCaps(const std::vector<int>& sizes, int tilesN, int ctas, int kBlocks,
                      helion::dev::StreamK* plans, long long* costs) {
  for (int i = 0; i < GroupedRowsShape::kCaps; ++i) {
    int tiles = 0, byClass[GroupedRowsShape::kClasses] = {};
    for (int m : sizes) {
      const GroupRows r = GroupRows::of(m, GroupedRowsShape::capOf(i));
      if (r.count > 0)
        byClass[r.h / GroupRows::kStep - 1] += r.count * tilesN;
      tiles += r.count * tilesN;
    }
    plans[i] = helion::dev::StreamK::plan(tiles, ctas, kBlocks, GroupedRowsShape::Consumers, true);
    costs[i] = GroupedRowsShape::capCost(plans[i], byClass);
  }
}

static int chosenCap(const std::vector<int>& sizes, int tilesN, int ctas, int kBlocks) {
  helion::dev::StreamK plans[GroupedRowsShape::kCaps];
  long long costs[GroupedRowsShape::kCaps];
  priceCaps(sizes, tilesN, ctas, kBlocks, plans, costs);
  return GroupedRowsShape::capOf(GroupedRowsShape::chooseCap(plans, costs));
}

int main() {
  EXPECT(GroupRows::of(0).count == 0 && GroupRows::of(-5).count == 0, " empty groups");
  for (int cap = 256; cap >= 128; cap -= 16) {
    for (long long m = 1; m <= 70000; ++m) {
      const GroupRows r = GroupRows::of(m, cap);
      const long long covered = static_cast<long long>(r.count) * r.h;
      EXPECT(r.h % 8 == 0 && r.h >= 8 && r.h <= cap, " m=%lld cap=%d h=%d", m, cap, r.h);
      EXPECT(r.count >= 1 && r.count <= (m + cap - 1) / cap, " m=%lld count=%d", m, r.count);
      EXPECT(covered >= m && covered - r.h < m, " m=%lld: %d x %d", m, r.count, r.h);
      EXPECT(covered - m < 8LL * r.count, " m=%lld: %lld rows past the end", m, covered - m);
    }
  }
  EXPECT(GroupRows::of(1025).count == 5 && GroupRows::of(1025).h == 208, " m = 1025");
  EXPECT(GroupRows::of(1836).count == 8 && GroupRows::of(1836).h == 232, " m = 1836");
  EXPECT(GroupRows::of(1688).count == 7 && GroupRows::of(1688).h == 248, " m = 1688");
  EXPECT(GroupRows::of(100).count == 1 && GroupRows::of(100).h == 104, " m = 100");
  EXPECT(GroupRows::of(1664, 224).count == 8 && GroupRows::of(1664, 224).h == 208, " 1664/224");
  // N 4096 (32 column tiles), K 4096 (64 k-blocks), 132 CTAs.
  EXPECT(chosenCap({1664}, 32, 132, 64) == 224, " one group of 1664 rows: cap 224");
  EXPECT(chosenCap(std::vector<int>(8, 1024), 32, 132, 64) == 256, " 8 x 1024: cap 256");
  EXPECT(chosenCap(std::vector<int>(8, 2048), 32, 132, 64) == 256, " 8 x 2048: cap 256");
  // H200 draws (session 32): cap 240 gained 2 % on the first, lost 2 % on the second.
  EXPECT(chosenCap({1029, 823, 660, 552, 1722, 1560, 922, 1579}, 32, 132, 64) == 240,
         " halves: cap 240");
  EXPECT(chosenCap({605, 1859, 451, 608, 424, 1827, 1764, 1350}, 32, 132, 64) == 256,
         " random 8888 rows: cap 256");
  std::mt19937 rng(7);
  for (int draw = 0; draw < 2000; ++draw) { // never more waves than cap 256's
    std::vector<int> sizes(1 + rng() % 16);
    for (int& m : sizes)
      m = static_cast<int>(rng() % 3000);
    const int tilesN = 1 + static_cast<int>(rng() % 40), ctas = 1 + static_cast<int>(rng() % 132);
    helion::dev::StreamK plans[GroupedRowsShape::kCaps];
    long long costs[GroupedRowsShape::kCaps];
    priceCaps(sizes, tilesN, ctas, 64, plans, costs);
    const int i = GroupedRowsShape::chooseCap(plans, costs);
    EXPECT(i >= 0 && i < GroupedRowsShape::kCaps, " draw %d: index %d", draw, i);
    EXPECT((plans[i].tiles + ctas - 1) / ctas <= (plans[0].tiles + ctas - 1) / ctas,
           " draw %d: cap %d", draw, GroupedRowsShape::capOf(i));
    EXPECT(costs[i] <= costs[0], " draw %d: cap %d dearer than 256", draw,
           GroupedRowsShape::capOf(i));
  }
  EXPECT(GroupedRowsShape::smemBytes(4) <= 227 * 1024, " smem %d",
         GroupedRowsShape::smemBytes(4));
  std::printf("grouped rows: %d failures\n", bad);
  return bad == 0 ? 0 : 1;
}
