// REQUIRES: frontend
// RUN: %helionc compile %s --emit ir | FileCheck %s
// RUN: rm -rf %t.dir && %helionc compile %s --emit cubin --dtype bf16 -o %t.dir | FileCheck %s --check-prefix=CUBIN
// Found by test/fuzz (seed 17): hl::operator& and hl::operator| on masks (documented
// pointwise operators, fine in ref mode) were rejected: "device code cannot call
// 'helion::hl::operator|'" and, for &, "device code cannot use pointers". They are the
// bitwise operators of the IR (logical on b8 masks).
#include <helion/hl.h>

using helion::Tensor;

// CHECK: kernel masks(
// CHECK: store %a[%tm, :] = where(bitor(gt(%v.0, 0), gt(load %x[%tm, :], 1)), %v.0, 0.0)
// CHECK: store %b[%tm, :] = where(bitand(gt(%v.0, 0), not(lt(load %x[%tm, :], -1))), %v.0, 1.0)
// CUBIN: masks.{{.*}}.cubin: masks_kernel<
HELION_KERNEL std::tuple<Tensor, Tensor> masks(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor a = helion::empty({m, n}, hl::f32, x.device());
  Tensor b = helion::empty({m, n}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto v = x[tm, hl::all].to(hl::f32);
    a[tm, hl::all] = hl::where((v > 0) | (x[tm, hl::all] > 1), v, 0.0);
    b[tm, hl::all] = hl::where((v > 0) & !(x[tm, hl::all] < -1), v, 1.0);
  }
  return {a, b};
}
