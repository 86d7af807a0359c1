// REQUIRES: frontend
// RUN: %helionc compile %s --stop-after recognize-templates | FileCheck %s
// Which computed first operands of a matmul loop are the GEMM templates' A prologue
// (ir::prologueLoad: pointwise code of the one A load, scalars, constants and vectors
// along A's rows, of A's dtype) and which keep the general lowering.
#include <helion/hl.h>
using helion::Tensor;

// CHECK-LABEL: kernel silu_a
// CHECK: matmul: a %x, b %w, acc %acc.0, tiles [tm, tn], k loop tk, a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], sigmoid(load %x[%tm, %tk])))
HELION_KERNEL Tensor silu_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto xa = x[tm, tk];
      acc = hl::dot((xa * hl::sigmoid(xa)).to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// A scalar parameter in F: a functor field.
// CHECK-LABEL: kernel scaled_a
// CHECK: a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], %alpha))
HELION_KERNEL Tensor scaled_a(const Tensor& x, const Tensor& w, float alpha) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tm, tk] * alpha).to(x.dtype()), w[tk, tn], acc);
    out[tm, tn] = acc;
  }
  return out;
}

// F reads a tile index: not a prologue (the general lowering, no matmul match).
// CHECK-LABEL: kernel index_a
// CHECK-NOT: matmul:
// CHECK: dot(
HELION_KERNEL Tensor index_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto col = tk.index()[hl::newaxis, hl::all];
      acc = hl::dot((x[tm, tk] * col).to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// F of another dtype than A's (f32): not a prologue either.
// CHECK-LABEL: kernel f32_a
// CHECK-NOT: matmul:
// CHECK: dot(
HELION_KERNEL Tensor f32_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tm, tk] * 2.0f).to(hl::f32), w[tk, tn].to(hl::f32), acc);
    out[tm, tn] = acc;
  }
  return out;
}

// A per-row vector (s[tm]) is read by the prologue at each element's row.
// CHECK-LABEL: kernel rowscale_a
// CHECK: a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], load %s[%tm][:, newaxis]))
HELION_KERNEL Tensor rowscale_a(const Tensor& x, const Tensor& s, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto sc = s[tm];
      acc = hl::dot((x[tm, tk] * sc[hl::all, hl::newaxis]).to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}
