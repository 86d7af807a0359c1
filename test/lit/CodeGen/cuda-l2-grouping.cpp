// REQUIRES: frontend
// RUN: echo '{"block_sizes": [64, 32], "l2_groupings": [8]}' > %t.g8.json
// RUN: %helionc compile %s --config %t.g8.json --emit cuda | FileCheck %s
// RUN: echo '{"block_sizes": [64, 32], "l2_groupings": [4], "pid_type": "persistent_interleaved"}' > %t.g4.json
// RUN: %helionc compile %s --config %t.g4.json --emit cuda | FileCheck %s --check-prefix=PERS
// RUN: echo '{"block_sizes": [64, 32], "l2_groupings": [1]}' > %t.g1.json
// RUN: %helionc compile %s --config %t.g1.json --emit cuda | FileCheck %s --check-prefix=OFF
// L2 grouping of a 2-D grid (Triton's grouped ordering): G rows of tiles are
// walked column by column, so neighbouring programs share rows of x in L2.
// Worked example, G = 8, nt_t0 = 20, nt_t1 = 3: in_group = 24; pid 25 is in group 1
// (first = 8, gsize = 8), id_t0 = 8 + 1 % 8 = 9, id_t1 = 1 / 8 = 0; the last group
// (first = 16) has gsize = 4.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor rows_times_cols(const Tensor& x, const Tensor& y) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n})) {
    out[tm, tn] = x[tm, tn] * y[tm, tn];
  }
  return out;
}

// CHECK: const int64 total_0 = 1 * nt_t0 * nt_t1;
// CHECK-NEXT: for (int64 pid = (int64)blockIdx.x - 0; pid >= 0 && pid < total_0; pid += total_0) {
// CHECK-NEXT:   const int64 in_group = 8 * nt_t1;
// CHECK-NEXT:   const int64 first = (pid / in_group) * 8;
// CHECK-NEXT:   const int64 gsize = (nt_t0 - first) < 8 ? (nt_t0 - first) : 8;
// CHECK-NEXT:   const int64 id_t0 = first + (pid % in_group) % gsize;
// CHECK-NEXT:   const int64 id_t1 = (pid % in_group) / gsize;
// CHECK-NEXT:   const int64 tb_t0 = begin_t0 + id_t0 * 64;
// CHECK:        const int64 tb_t1 = begin_t1 + id_t1 * 32;

// PERS: for (int64 pid = blockIdx.x; pid < total_0; pid += gridDim.x) {
// PERS-NEXT: const int64 in_group = 4 * nt_t1;
// PERS: const int64 id_t1 = (pid % in_group) / gsize;

// OFF-NOT: in_group
// OFF: const int64 id_t0 = rem % nt_t0;
// OFF-NOT: in_group
