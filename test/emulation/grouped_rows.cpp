// The row tiles of runtime/device/helion/grouped_rows_plan.cuh (the row-fitting grouped
// GEMM) compiled for the CPU: for every group size m up to 70000, GroupRows::of(m)
// gives tiles whose heights are multiples of 16 from 16 to 256, that cover the group's
// rows with none empty, in at most ceil(m / 256) tiles, computing fewer than 16 rows
// past the group's end per tile; the documented examples hold; and the kernel's shared
// memory fits the 227 KB an sm_90a CTA may take.
#include <cstdio>

#include "helion/grouped_rows_plan.cuh"
#include "expect.h"

using helion::dev::GroupedRowsShape;
using helion::dev::GroupRows;

int main() {
  EXPECT(GroupRows::of(0).count == 0 && GroupRows::of(-5).count == 0, " empty groups");
  for (long long m = 1; m <= 70000; ++m) {
    const GroupRows r = GroupRows::of(m);
    const long long covered = static_cast<long long>(r.count) * r.h;
    EXPECT(r.h % 16 == 0 && r.h >= 16 && r.h <= 256, " m=%lld h=%d", m, r.h);
    EXPECT(r.count >= 1 && r.count <= (m + 255) / 256, " m=%lld count=%d", m, r.count);
    EXPECT(covered >= m && covered - r.h < m, " m=%lld: %d x %d", m, r.count, r.h);
    EXPECT(covered - m < 16LL * r.count, " m=%lld: %lld rows past the end", m, covered - m);
  }
  EXPECT(GroupRows::of(1025).count == 5 && GroupRows::of(1025).h == 208, " m = 1025");
  EXPECT(GroupRows::of(1836).count == 8 && GroupRows::of(1836).h == 240, " m = 1836");
  EXPECT(GroupedRowsShape::smemBytes(4) <= 227 * 1024, " smem %d",
         GroupedRowsShape::smemBytes(4));
  std::printf("grouped rows: %d failures\n", bad);
  return bad == 0 ? 0 : 1;
}
