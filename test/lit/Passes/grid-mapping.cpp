// REQUIRES: frontend
// RUN: echo '{"block_sizes": [128, 64, 32], "l2_groupings": [4]}' > %t.g4.json
// RUN: %helionc compile %s --config %t.g4.json --stop-after grid-mapping | FileCheck %s
// RUN: echo '{"block_sizes": [128, 64, 32], "l2_groupings": [4], "loop_orders": [[1, 0]], "pid_type": "persistent_interleaved"}' > %t.order.json
// RUN: %helionc compile %s --config %t.order.json --stop-after grid-mapping | FileCheck %s --check-prefix=ORDER
// RUN: %helionc compile %s --config %t.g4.json --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: echo '{"block_sizes": [64, 32], "l2_groupings": [8], "pid_type": "xyz"}' > %t.xyz.json
// RUN: %helionc compile %S/../CodeGen/cuda-l2-grouping.cpp --config %t.xyz.json --stop-after grid-mapping | FileCheck %s --check-prefix=XYZ
// grid-mapping decides, per grid loop, the pid mapping, the tile order and the L2 group.
// l2_groupings and loop_orders are numbered over the loops they can apply to (two
// tiles; two or more), not by loop position: here the first grid loop has one tile and
// the second two, so the second takes l2_groupings[0].
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor scale_then_product(const Tensor& v, const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor w = helion::empty_like(v);
  Tensor out = helion::empty_like(x);
  for (auto tv : hl::tile(v.size(0))) {
    w[tv] = v[tv] * 2.0f;
  }
  for (auto [tm, tn] : hl::tile({m, n})) {
    out[tm, tn] = x[tm, tn] * x[tm, tn];
  }
  return out;
}

// CHECK:      // -----// IR after grid-mapping //----- //
// CHECK-NEXT: kernel scale_then_product(
// CHECK:      for %tv in tile({{.*}}) block bs0 grid(flat, order [%tv], l2_group 1) {
// CHECK:      for %tm in tile({{.*}}) block bs1, %tn in tile({{.*}}) block bs2 grid(flat, order [%tm, %tn]{{( = loop_orders\[0\])?}}, l2_group 4 = l2_groupings[0]) {
// CHECK-NOT:  // -----// IR after

// ORDER: for %tv in tile({{.*}}) block bs0 grid(persistent_interleaved, order [%tv], l2_group 1) {
// ORDER: grid(persistent_interleaved, order [%tn, %tm] = loop_orders[0], l2_group 4 = l2_groupings[0]) {

// The second loop's programs are grouped by 4 rows (of tn, the first of its order).
// CUDA:      const int64 total_1 = 1 * nt_t1 * nt_t2;
// CUDA:      const int64 in_group = 4 * nt_t2;
// CUDA-NEXT: const int64 first = (pid / in_group) * 4;

// xyz: the single grid loop's tiles are blockIdx.x/y; no L2 group.
// XYZ: grid(xyz, order [%tm, %tn]{{( = loop_orders\[0\])?}}, l2_group 1) {
