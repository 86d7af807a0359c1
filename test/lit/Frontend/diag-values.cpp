// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Misused language values: tiles, dtypes, reduction dims, tensors.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor values(const Tensor& x, int dim) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  helion::DType dt = x.dtype();
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-values.cpp:[[@LINE+1]]:38: error: expected a constant reduction dim, found 'dim'
    auto s = hl::sum(x[tm, hl::all], dim);
    // CHECK: diag-values.cpp:[[@LINE+1]]:32: error: expected a dtype such as hl::f32 or t.dtype() of a tensor, found 'dt'
    auto c = x[tm, hl::all].to(dt);
    // CHECK: diag-values.cpp:[[@LINE+1]]:30: error: expected a dtype such as hl::f32, found 'dt'
    auto z = hl::zeros({tm}, dt);
    // CHECK: diag-values.cpp:[[@LINE+1]]:14: error: tile 'tm' cannot be used as a value: use it in a subscript or a shape, or call .index(), .begin(), ...
    auto t = tm;
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}

HELION_KERNEL Tensor more_values(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  // CHECK: diag-values.cpp:[[@LINE+1]]:45: error: expected a constant block size, hl::tunable or a variable from hl::register_block_size, found 'n'
  for (auto tm : hl::tile(m, hl::block_size(n))) {
    out[tm, hl::all] = x[tm, hl::all];
  }
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-values.cpp:[[@LINE+1]]:18: error: expected hl::arange(size), found 2 arguments
    auto r = hl::arange(0, n);
    // CHECK: diag-values.cpp:[[@LINE+1]]:28: error: device code cannot call 'helion::Tensor::numel'
    auto s = x.size(0) + x.numel();
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
