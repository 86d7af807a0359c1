// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Tensors are allocated by host code, before the device loops.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor allocates(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-allocate.cpp:[[@LINE+1]]:12: error: device code cannot allocate tensors or hold tensor variables; subscript a host tensor instead
    Tensor tmp = helion::empty_like(x);
    // CHECK: diag-allocate.cpp:[[@LINE+1]]:32: error: device code cannot allocate tensors ('helion::empty_like'): allocate them in host code before the device loop
    out[tm, hl::all] = helion::empty_like(x)[tm, hl::all];
  }
  return out;
}
