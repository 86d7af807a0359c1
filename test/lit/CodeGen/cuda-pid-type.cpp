// REQUIRES: frontend
// RUN: echo '{"block_sizes": [32, 32]}' > %t.flat.json
// RUN: %helionc compile %s --config %t.flat.json --emit cuda | FileCheck %s --check-prefix=FLAT
// RUN: echo '{"pid_type": "xyz", "block_sizes": [16, 64]}' > %t.xyz.json
// RUN: %helionc compile %s --config %t.xyz.json --emit cuda | FileCheck %s --check-prefix=XYZ
// RUN: %helionc compile %s --config %t.xyz.json --emit host | FileCheck %s --check-prefix=XYZ-HOST
// RUN: echo '{"pid_type": "persistent_interleaved"}' > %t.inter.json
// RUN: %helionc compile %s --config %t.inter.json --emit cuda | FileCheck %s --check-prefix=INTER
// RUN: echo '{"pid_type": "persistent_blocked"}' > %t.blocked.json
// RUN: %helionc compile %s --config %t.blocked.json --emit cuda | FileCheck %s --check-prefix=BLOCKED
// RUN: echo '{"loop_orders": [[1, 0]]}' > %t.order.json
// RUN: %helionc compile %s --config %t.order.json --emit cuda | FileCheck %s --check-prefix=ORDER
// RUN: echo '{"pid_type": "xyz"}' > %t.xyz1.json
// RUN: %helionc compile %examples/sum.cpp --config %t.xyz1.json --emit cuda | FileCheck %s --check-prefix=XYZ1
// Program ids to tiles for each pid_type, on a 2-D grid loop.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor scale_add(const Tensor& x, const Tensor& y, double alpha) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n})) {
    out[tm, tn] = x[tm, tn] * alpha + y[tm, tn];
  }
  return out;
}

// flat: one program per tile, the first tile fastest (Helion's flat mapping).
// FLAT: const int64 nt_t0 = hd::cdiv<int64>(end_t0 - begin_t0, 32);
// FLAT: const int64 nt_t1 = hd::cdiv<int64>(end_t1 - begin_t1, 32);
// FLAT-NEXT: const int64 total_0 = 1 * nt_t0 * nt_t1;
// FLAT-NEXT: for (int64 pid = (int64)blockIdx.x - 0; pid >= 0 && pid < total_0; pid += total_0) {
// FLAT-NEXT:   int64 rem = pid;
// FLAT-NEXT:   const int64 id_t0 = rem % nt_t0;
// FLAT-NEXT:   rem /= nt_t0;
// FLAT-NEXT:   const int64 id_t1 = rem;
// FLAT:        const int64 tb_t0 = begin_t0 + id_t0 * 32;
// FLAT-NEXT:   const int64 te_t0 = hd::minimum<int64>(tb_t0 + 32, end_t0);
// FLAT-NOT: gridDim
// FLAT-NOT: blockIdx.y

// xyz: tile i from blockIdx.x/y/z; out-of-range x blocks leave; y (and z), which the
// launch grid limits to 65535 (the launcher caps them), loop with the grid's stride.
// XYZ: const int64 nt_t0 = hd::cdiv<int64>(end_t0 - begin_t0, 16);
// XYZ: const int64 nt_t1 = hd::cdiv<int64>(end_t1 - begin_t1, 64);
// XYZ-NOT: for (int64 pid
// XYZ:      const int64 id_t0 = blockIdx.x;
// XYZ-NEXT: if (id_t0 >= nt_t0) return;
// XYZ-NEXT: for (int64 id_t1 = blockIdx.y; id_t1 < nt_t1; id_t1 += gridDim.y) {
// XYZ-NEXT:   const int64 tb_t0 = begin_t0 + id_t0 * 16;
// XYZ:      const int64 tb_t1 = begin_t1 + id_t1 * 64;
// XYZ-HOST: grid.x = static_cast<unsigned>(
// XYZ-HOST-NEXT: grid.y = static_cast<unsigned>(std::min<int64_t>({{.*}}, 65535));
// XYZ1:      const int64 id_t0 = blockIdx.x;
// XYZ1-NEXT: if (id_t0 >= nt_t0) return;
// XYZ1-NOT: blockIdx.y

// persistent_interleaved: program p takes tiles p, p + grid, p + 2 grid, ...
// INTER: for (int64 pid = blockIdx.x; pid < total_0; pid += gridDim.x) {
// INTER-NEXT: int64 rem = pid;
// persistent_blocked: program p takes a contiguous run of cdiv(total, grid) tiles.
// BLOCKED:      const int64 per_cta_0 = hd::cdiv<int64>(total_0, (int64)gridDim.x);
// BLOCKED-NEXT: for (int64 pid = blockIdx.x * per_cta_0; pid < (blockIdx.x + 1) * per_cta_0 && pid < total_0; ++pid) {

// loop_orders [[1, 0]]: tn varies fastest.
// ORDER: const int64 total_0 = 1 * nt_t1 * nt_t0;
// ORDER: const int64 id_t1 = rem % nt_t1;
// ORDER-NEXT: rem /= nt_t1;
// ORDER-NEXT: const int64 id_t0 = rem;
// ORDER-NOT: rem /= nt_t0
