// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Jagged loop bounds and hl::rand: the forms that stay unsupported are located errors
// (types are checked by infer-types, after the frontend).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor bad_bounds(const Tensor& values, const Tensor& offsets) {
  auto [total, d] = values.shape<2>();
  const int64_t nrows = offsets.size(0) - 1;
  Tensor out = helion::empty({nrows, d}, values.dtype(), values.device());
  for (auto [tr, td] : hl::tile({nrows, d})) {
    auto starts = offsets[tr];
    // CHECK: diag-jagged-scan-rand.cpp:[[@LINE+1]]:32: error: a loop bound must be a scalar (a 0-d integer block), found a block of shape [tr]
    for (auto tk : hl::tile(0, starts))
      out[tr, td] = values[tr, td];
    auto first = offsets[tr.begin()];
    // CHECK: diag-jagged-scan-rand.cpp:[[@LINE+1]]:35: error: a loop bound must be an integer, found f32
    for (auto tk : hl::tile(first.to(hl::f32), total))
      out[tr, td] = values[tr, td];
  }
  return out;
}

HELION_KERNEL Tensor bad_rand(const Tensor& x, double fseed, int64_t seed) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({m, n})) {
    // CHECK: diag-jagged-scan-rand.cpp:[[@LINE+1]]:28: error: hl::rand: the seed must be an integer, got f64
    out[tm, tn] = hl::rand(fseed, tn.index());
    // CHECK: diag-jagged-scan-rand.cpp:[[@LINE+1]]:44: error: hl::rand: offsets must be an integer block, got f32
    out[tm, tn] = hl::rand(seed, x[tm, tn].to(hl::f32));
  }
  return out;
}
