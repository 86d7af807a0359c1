// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Every tile loop runs to its end: no break, continue or return out of it.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor escapes(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    for (auto tn : hl::tile(n)) {
      out[tm, tn] = x[tm, tn];
      // CHECK: diag-escape.cpp:[[@LINE+1]]:7: error: 'break' cannot leave a tile loop: every tile runs to its end
      break;
    }
    // CHECK: diag-escape.cpp:[[@LINE+1]]:5: error: 'continue' is not supported in a tile loop
    continue;
    // CHECK: diag-escape.cpp:[[@LINE+1]]:5: error: 'return' cannot leave a tile loop: device code returns nothing
    return out;
  }
  return out;
}
