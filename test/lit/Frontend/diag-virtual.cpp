// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
#include <helion/hl.h>

using helion::Tensor;
struct Scaler {
  virtual double factor() const { return 2.0; }
};

HELION_KERNEL Tensor virtual_call(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  Scaler s;
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-virtual.cpp:[[@LINE+1]]:43: error: device code cannot make virtual calls ('Scaler::factor')
    out[tm, hl::all] = x[tm, hl::all] * s.factor();
  }
  return out;
}
