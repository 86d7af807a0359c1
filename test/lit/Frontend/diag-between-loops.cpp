// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// All top-level loops of a kernel are one launch: host code between them runs
// before it and cannot see what the loops write.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor between(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  Tensor out2 = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    out[tm, hl::all] = x[tm, hl::all];
  }
  // CHECK: diag-between-loops.cpp:[[@LINE+1]]:22: error: host code between device loops cannot read 'out', which the device loop at line 14 writes: all device loops of a kernel run as one launch
  int64_t rows = 1 + out.size(0);
  for (auto tm : hl::tile(m)) {
    out2[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
