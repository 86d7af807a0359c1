// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Device code calls only the language (hl::...): no user or library functions.
#include <helion/hl.h>
#include <cmath>

using helion::Tensor;
float scale_of(int64_t);

HELION_KERNEL Tensor calls(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-call.cpp:[[@LINE+1]]:33: error: device code cannot call 'scale_of'
    auto row = x[tm, hl::all] * scale_of(m);
    // CHECK: diag-call.cpp:[[@LINE+1]]:10: error: device code cannot call 'printf'
    std::printf("%d\n", 1);
    out[tm, hl::all] = row;
  }
  return out;
}
