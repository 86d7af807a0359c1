// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Calls into std:: that have an hl:: twin say which one to use.
#include <helion/hl.h>
#include <cmath>

using helion::Tensor;

HELION_KERNEL Tensor calls_std(const Tensor& x, double eps) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-call-std.cpp:[[@LINE+1]]:46: error: device code cannot call 'std::sqrt': use hl::sqrt
    out[tm, hl::all] = x[tm, hl::all] * std::sqrt(eps);
  }
  return out;
}
