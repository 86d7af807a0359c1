// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor jumps(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-goto.cpp:[[@LINE+1]]:5: error: device code cannot use 'goto'
    goto done;
    // CHECK: diag-goto.cpp:[[@LINE+1]]:3: error: device code cannot use labels or 'goto'
  done:
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
