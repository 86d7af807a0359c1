// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// No exceptions on the device.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor throws(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-exceptions.cpp:[[@LINE+1]]:5: error: device code cannot throw exceptions
    throw 1;
    // CHECK: diag-exceptions.cpp:[[@LINE+1]]:5: error: device code cannot use exceptions ('try')
    try {
      out[tm, hl::all] = x[tm, hl::all];
    } catch (...) {
    }
  }
  return out;
}
