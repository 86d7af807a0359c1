// REQUIRES: frontend
// range_unroll_factors: one per inner tile loop, numbered as the spec numbers them;
// 0 leaves unrolling to NVRTC (no pragma), N puts `#pragma unroll N` on the loop.
//
// RUN: echo '{"range_unroll_factors": [1, 2]}' > %t.json
// RUN: %helionc compile %s --config %t.json --emit cuda | FileCheck %s
// CHECK: const int64 end_t1 =
// CHECK-NEXT: #pragma unroll 1
// CHECK-NEXT: for (int64 tb_t1 =
// CHECK: const int64 end_t2 =
// CHECK-NEXT: #pragma unroll 2
// CHECK-NEXT: for (int64 tb_t2 =
//
// RUN: %helionc compile %s --emit cuda | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-NOT: #pragma unroll {{[0-9]}}
#include <helion/hl.h>
using helion::Tensor;

HELION_KERNEL Tensor row_sum_twice(const Tensor& x) {
  int64_t m = x.size(0), n = x.size(1);
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto acc = hl::zeros({tm}, hl::f32);
    for (auto tn : hl::tile(n))
      acc = acc + hl::sum(x[tm, tn], 1);
    for (auto tn : hl::tile(n))
      acc = acc + hl::sum(x[tm, tn], 1);
    out[tm] = acc;
  }
  return out;
}
