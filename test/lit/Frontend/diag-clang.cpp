// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Clang's own errors come out in the same format, with a caret.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor broken(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-clang.cpp:[[@LINE+3]]:24: error: use of undeclared identifier 'y'
    // CHECK-NEXT: {{^}} [[@LINE+2]] |     out[tm, hl::all] = y[tm, hl::all];
    // CHECK-NEXT: {{^}}    |                        ^
    out[tm, hl::all] = y[tm, hl::all];
  }
  return out;
}
