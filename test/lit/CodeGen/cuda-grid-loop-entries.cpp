// REQUIRES: frontend
// RUN: echo '{"loop_orders": [[1, 0]], "l2_groupings": [4]}' > %t.json
// RUN: %helionc compile %s --config %t.json --emit cuda | FileCheck %s
// RUN: %helionc spec %s | FileCheck %s --check-prefix=SPEC
// loop_orders and l2_groupings have one entry per grid loop of 2 or more (exactly 2)
// tiles: a kernel whose first grid loop has one tile gives its second loop entry 0.
// (The emitter used to read entry 1, the loop's position, and ignore the config.)
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor two_loops(const Tensor& x, const Tensor& y) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  Tensor rows = helion::empty({m}, x.dtype(), x.device());
  for (auto tr : hl::tile(m)) {
    rows[tr] = y[tr, 0];
  }
  for (auto [ta, tb] : hl::tile({m, n})) {
    out[ta, tb] = x[ta, tb] + 1.0f;
  }
  return out;
}

// SPEC: loop_orders
// SPEC-NEXT: [0] (ta, tb)
// SPEC: l2_groupings
// SPEC-NEXT: [0] (ta, tb)

// The second loop (tiles t1 = ta, t2 = tb) walks tb first (loop order [1, 0]), in
// groups of 4 along it.
// CHECK: const int64 total_0 = 1 * nt_t0;
// CHECK: const int64 total_1 = 1 * nt_t2 * nt_t1;
// CHECK-NEXT: for (int64 pid = (int64)blockIdx.x - (total_0); pid >= 0 && pid < total_1; pid += total_1) {
// CHECK-NEXT:   const int64 in_group = 4 * nt_t1;
// CHECK-NEXT:   const int64 first = (pid / in_group) * 4;
// CHECK-NEXT:   const int64 gsize = (nt_t2 - first) < 4 ? (nt_t2 - first) : 4;
