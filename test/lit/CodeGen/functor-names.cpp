// REQUIRES: frontend
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %s --kernel attn_names --emit cuda | FileCheck %s --check-prefix=ATTN
// RUN: %helionc compile %s --kernel attn_names --emit cubin --arch sm_90a --dtype bf16 --specialize 64 -o %t | FileCheck %s --check-prefix=CUBIN
// RUN: %helionc compile %s --kernel mm_names --emit cuda | FileCheck %s --check-prefix=MM
// RUN: %helionc compile %s --kernel mm_names --emit cubin --arch sm_90a --dtype bf16 -o %t | FileCheck %s --check-prefix=MMCUBIN
// RUN: %helionc compile %s --kernel linear --emit cubin --arch sm_90a --dtype bf16 -o %t | FileCheck %s --check-prefix=LIN90
// RUN: %helionc compile %s --kernel linear --emit cubin --arch sm_80 --dtype bf16 -o %t | FileCheck %s --check-prefix=LIN80
// RUN: %helionc compile %s --kernel attn_n --emit cubin --arch sm_90a --dtype bf16 --specialize 64 -o %t | FileCheck %s --check-prefix=ATTN_N
// The template functors' own parameters and locals end in "__", so that the kernel's
// tensors and scalars, which are the functors' fields under their source names, are
// never shadowed (found by the fuzzer's attention template: a scalar `x` read by the
// score computed q.k * scale * q.k, and an output named o0 did not compile). So do the
// template kernels' own parameters (M, N, K, B, a, b, smem, ...): a bias named `b` (the
// sm80 kernel's B operand was `b`) or a scalar named N failed at NVRTC with a duplicate
// parameter.
#include <helion/hl.h>

#include <cmath>

using helion::Tensor;

// ATTN: float operator()(float x__, int64 row__, int64 col__) const {
// ATTN-NEXT: return float((float((float(x__) * float(p_scale))) * float(p_x)));
// ATTN: void operator()(int64 b__, int64 row__, int64 col__, float o0__, float o1__, float l__, float m__) const {
// ATTN: T_p_o0* ptr__ = p_o0 + (b__ * stride_p_o0_0 + row__ * stride_p_o0_1 + col__ * stride_p_o0_2);
// CUBIN: attn_names_kernel<hd::bf16, hd::bf16, hd::bf16, 64, hd::bf16> (sm_90a
HELION_KERNEL Tensor attn_names(const Tensor& q, const Tensor& k, const Tensor& v, double x) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor o0 = helion::empty_like(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    auto qt = q[tb, tm, hl::all];
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(qt, k[tb, tn, hl::all].transpose(1, 2)) * scale * x;
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    o0[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return o0;
}

// A matmul whose A prologue reads a scalar named k and whose epilogue reads one named row.
// MM: float prologue_a(int64 row__, int64 k__, float a_elem__) const {
// MM-NEXT: return float((hd::compute_t<T_p_x>(a_elem__) * hd::compute_t<T_p_x>(p_k)));
// MM: float transform(int64 row__, int64 col__, float acc__) const {
// MM: return float((float(v0) * float(p_row)));
// MMCUBIN: mm_names_kernel<hd::bf16, hd::bf16, hd::bf16, 1> (sm_90a
HELION_KERNEL Tensor mm_names(const Tensor& x, const Tensor& w, float k, float row) {
  auto [m, kk] = x.shape<2>();
  auto [kk2, n] = w.shape<2>();
  HELION_CHECK(kk == kk2, "mm_names: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(kk))
      acc = hl::dot((x[tm, tk] * k).to(x.dtype()), w[tk, tn], acc);
    out[tm, tn] = acc * row;
  }
  return out;
}

// x @ w + b with the bias named b.
// LIN90: linear_kernel<hd::bf16, hd::bf16, hd::bf16, hd::bf16, 1> (sm_90a
// LIN80: linear_kernel_sm80<hd::bf16, hd::bf16, hd::bf16, hd::bf16, 0> (sm_80
HELION_KERNEL Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "linear: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tm, tk], w[tk, tn], acc);
    out[tm, tn] = acc + b[tn];
  }
  return out;
}

// Attention whose score reads a scalar named N (a parameter of the kernel before).
// ATTN_N: attn_n_kernel<hd::bf16, hd::bf16, hd::bf16, 64, hd::bf16> (sm_90a
HELION_KERNEL Tensor attn_n(const Tensor& q, const Tensor& k, const Tensor& v, double N) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    auto qt = q[tb, tm, hl::all];
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(qt, k[tb, tn, hl::all].transpose(1, 2)) * N;
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}
