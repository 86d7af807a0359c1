// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor pointers(const Tensor& x, double eps) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-pointers.cpp:[[@LINE+1]]:19: error: device code cannot use pointers: 'p' has type 'const double *'
    const double* p = &eps;
    // CHECK: diag-pointers.cpp:[[@LINE+1]]:10: error: device code cannot use pointers: 'addr' has type 'double *'
    auto addr = &eps;
    // CHECK: diag-pointers.cpp:[[@LINE+1]]:18: error: device code cannot use pointers ('*')
    auto v = 1 + *&eps;
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
