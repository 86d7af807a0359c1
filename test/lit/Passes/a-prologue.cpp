// REQUIRES: frontend
// RUN: %helionc compile %s --stop-after recognize-templates | FileCheck %s
// Which computed first operands of a matmul loop are the GEMM templates' A prologue
// (ir::prologueLoad: pointwise code of the one A load, scalars, constants and vectors
// along A's K and (2-D) rows, of A's dtype) and which keep the general lowering.
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

// F reads A's K tile's index: the element's k.
// CHECK-LABEL: kernel index_a
// CHECK: a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], %tk.index[newaxis, :]))
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

// A vector along K (s[tk]) is read at each element's k.
// CHECK-LABEL: kernel colscale_a
// CHECK: a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], load %s[%tk][newaxis, :]))
HELION_KERNEL Tensor colscale_a(const Tensor& x, const Tensor& s, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto sc = s[tk];
      acc = hl::dot((x[tm, tk] * sc[hl::newaxis, hl::all]).to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// Vectors of both kinds in one F, the K one broadcast without a view.
// CHECK-LABEL: kernel rowcol_a
// CHECK: a prologue cast<dtype(%x)>(add(mul(load %x[%tm, %tk], load %r[%tm][:, newaxis]), load %c[%tk]))
HELION_KERNEL Tensor rowcol_a(const Tensor& x, const Tensor& r, const Tensor& c,
                              const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto a = x[tm, tk] * r[tm][hl::all, hl::newaxis] + c[tk];
      acc = hl::dot(a.to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// A batched matmul's A scaled along K: the same vector for every batch.
// CHECK-LABEL: kernel bmm_colscale_a
// CHECK: matmul: a %x, b %y, acc %acc.0, tiles [tb, tm, tn], k loop tk, a prologue cast<dtype(%x)>(mul(load %x[%tb, %tm, %tk], load %s[%tk]))
HELION_KERNEL Tensor bmm_colscale_a(const Tensor& x, const Tensor& s, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto [b2, k2, n] = y.shape<3>();
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tb, tm, tk] * s[tk]).to(x.dtype()), y[tb, tk, tn], acc);
    out[tb, tm, tn] = acc;
  }
  return out;
}

// A lower-triangular A (a causal mask on A: where(k <= row, x, 0)), both tile indices.
// CHECK-LABEL: kernel tril_a
// CHECK: a prologue cast<dtype(%x)>(where(le(%tk.index[newaxis, :], %tm.index[:, newaxis]), load %x[%tm, %tk], 0.0))
HELION_KERNEL Tensor tril_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto keep = tk.index()[hl::newaxis, hl::all] <= tm.index()[hl::all, hl::newaxis];
      acc = hl::dot(hl::where(keep, x[tm, tk], 0.0f).to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// A batched matmul's A scaled along its rows: not a prologue (row vectors are 2-D
// dots' only).
// CHECK-LABEL: kernel bmm_rowscale_a
// CHECK-NOT: matmul:
// CHECK: dot(
HELION_KERNEL Tensor bmm_rowscale_a(const Tensor& x, const Tensor& s, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto [b2, k2, n] = y.shape<3>();
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto sc = s[tm];
      auto a = (x[tb, tm, tk] * sc[hl::newaxis, hl::all, hl::newaxis]).to(x.dtype());
      acc = hl::dot(a, y[tb, tk, tn], acc);
    }
    out[tb, tm, tn] = acc;
  }
  return out;
}

// A second 2-D load in F (another tensor at A's subscripts [tm, tk]): read per element.
// CHECK-LABEL: kernel product_a
// CHECK: matmul: a %x, b %w, acc %acc.0, tiles [tm, tn], k loop tk, a prologue cast<dtype(%x)>(mul(load %x[%tm, %tk], load %y[%tm, %tk])), staged %y,
HELION_KERNEL Tensor product_a(const Tensor& x, const Tensor& y, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tm, tk] * y[tm, tk]).to(x.dtype()), w[tk, tn], acc);
    out[tm, tn] = acc;
  }
  return out;
}

// A is the first load of the result's dtype: here y (x is f32, cast to y's dtype).
// CHECK-LABEL: kernel product_y_a
// CHECK: matmul: a %y, b %w, acc %acc.0, tiles [tm, tn], k loop tk, a prologue cast<dtype(%y)>(mul(load %x[%tm, %tk], load %y[%tm, %tk])), staged %x,
HELION_KERNEL Tensor product_y_a(const Tensor& x, const Tensor& y, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tm, tk] * y[tm, tk]).to(y.dtype()), w[tk, tn], acc);
    out[tm, tn] = acc;
  }
  return out;
}

// A second 2-D load at other subscripts (y[tk, tm], transposed): not a prologue.
// CHECK-LABEL: kernel product_t_a
// CHECK-NOT: matmul:
// CHECK: dot(
HELION_KERNEL Tensor product_t_a(const Tensor& x, const Tensor& y, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tm, tk] * y[tk, tm].transpose(0, 1)).to(x.dtype()), w[tk, tn], acc);
    out[tm, tn] = acc;
  }
  return out;
}

// A batched matmul with a second 3-D load in F: not a prologue (2-D dots only).
// CHECK-LABEL: kernel bmm_product_a
// CHECK-NOT: matmul:
// CHECK: dot(
HELION_KERNEL Tensor bmm_product_a(const Tensor& x, const Tensor& z, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto [b2, k2, n] = y.shape<3>();
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot((x[tb, tm, tk] * z[tb, tm, tk]).to(x.dtype()), y[tb, tk, tn], acc);
    out[tb, tm, tn] = acc;
  }
  return out;
}
