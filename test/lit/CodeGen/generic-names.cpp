// REQUIRES: frontend
// XFAIL: *
// RUN: %helionc compile %s --emit cuda | FileCheck %s
// A known bug, kept here until it is fixed (then this test passes unexpectedly and lit
// fails it: drop the XFAIL line). The generic emitter's own locals are plain names, so a
// kernel scalar of the same name is shadowed in the generated CUDA and the kernel
// computes with the local instead, silently: `pid` (the grid loop's program id), `v`
// (the vector lane loop), `acc` (a reduction's accumulator). Ref mode computes the
// intended value. The template kernels' names end in "__" (functor-names.cpp); the
// generic emitter's should too. Each CHECK-NOT below is a local that shadows one.
#include <helion/hl.h>

using helion::Tensor;

// CHECK-LABEL: scale_v_kernel(
// CHECK-NOT: int v = 0; v <
// CHECK-LABEL: scale_pid_kernel(
// CHECK-NOT: int64 pid =
// CHECK-LABEL: rowsum_acc_kernel(
// CHECK-NOT: > acc =
HELION_KERNEL Tensor scale_v(const Tensor& x, float v) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = x[tile] * v;
  return out;
}

HELION_KERNEL Tensor scale_pid(const Tensor& x, float pid) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = x[tile] * pid;
  return out;
}

HELION_KERNEL Tensor rowsum_acc(const Tensor& x, float acc) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m))
    out[tm] = hl::sum(x[tm, hl::all] * acc, 1);
  return out;
}
