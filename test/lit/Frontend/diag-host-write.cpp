// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Host variables are read-only in device code.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor writes_host(const Tensor& x, double eps) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  int64_t count = 0;
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-host-write.cpp:[[@LINE+1]]:5: error: device code cannot assign to host variable 'eps': host variables are read-only in device loops
    eps = 2.0;
    // CHECK: diag-host-write.cpp:[[@LINE+1]]:5: error: device code cannot assign to host variable 'count'
    count += 1;
    // CHECK: diag-host-write.cpp:[[@LINE+1]]:5: error: device code cannot assign to host variable 'count'
    count++;
    // CHECK: diag-host-write.cpp:[[@LINE+1]]:5: error: device code cannot assign to host variable 'out'
    out = x;
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
