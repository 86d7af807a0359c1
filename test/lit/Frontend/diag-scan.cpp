// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// A scan's dim must be a constant (it picks the layout axis the scan runs along).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor bad_scan(const Tensor& x, int64_t dim) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-scan.cpp:[[@LINE+1]]:51: error: expected a constant scan dim, found 'dim'
    out[tm, hl::all] = hl::cumsum(x[tm, hl::all], dim);
  }
  return out;
}
