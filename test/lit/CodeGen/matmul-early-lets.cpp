// REQUIRES: frontend
// Lets before the K loop of a matmul besides its accumulator (an epilogue operand read
// early, `auto b = bias[tn];`, before or after `auto acc = hl::zeros(...)`) are values of
// the epilogue: the recognizer moves them to its front, and the GEMM templates run the
// kernel (before, such kernels were errors: "a tensor-core matmul starts with its
// accumulator", "expected the K loop ... after the accumulator").
// RUN: %helionc compile %s --kernel bias_between --stop-after recognize-templates 2>&1 | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %s --kernel bias_between --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %s --kernel bias_first --emit cuda | FileCheck %s --check-prefix=FIRST
// RUN: %helionc spec %s --kernel bias_first | FileCheck %s --check-prefix=SPEC
// RUN: rm -rf %t && %helionc compile %s --kernel bias_between --emit cubin --dtype bf16 -o %t | FileCheck %s --check-prefix=CUBIN
// A let after the K loop's accumulate is no accumulate form: the general lowering
// (before, the dispatcher sent it to the templates, whose recognizer rejected it).
// RUN: %helionc spec %s --kernel let_after | FileCheck %s --check-prefix=AFTER
#include <helion/hl.h>

using helion::Tensor;

// IR: matmul: a %x, b %y, acc %acc.0, tiles [tm, tn], k loop tk, epilogue 2, single store %out
// CUDA: tensor-core matmul: A = x [M, K], B = y [K, N]
// CUDA: float v0 = acc__;
// CUDA-NEXT: hd::compute_t<T_p_bias> v1 = hd::to_compute(p_bias[col__ * stride_p_bias_0])
// The tma_store transform runs on the whole tile: columns past N read at N - 1, no branch.
// CUDA: float transform(int64 row__, int64 col__, float acc__) const {
// CUDA-NEXT: float v0 = acc__;
// CUDA-NEXT: hd::compute_t<T_p_bias> v1 = hd::to_compute(p_bias[(col__ < N__ ? col__ : N__ - 1) * stride_p_bias_0])
// CUBIN: bias_between_kernel<hd::bf16, hd::bf16, hd::bf16, hd::bf16, 1> (sm_90a
HELION_KERNEL Tensor bias_between(const Tensor& x, const Tensor& y, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    auto b = bias[tn];
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tm, tk], y[tk, tn], acc);
    out[tm, tn] = acc + b;
  }
  return out;
}

// SPEC: config spec of kernel 'bias_first' ({{.*}}): its dot runs the GEMM templates
// FIRST: tensor-core matmul: A = x [M, K], B = y [K, N]
// FIRST: float v1 = acc__;
// FIRST-NEXT: hd::compute_t<T_p_bias> v0 =
HELION_KERNEL Tensor bias_first(const Tensor& x, const Tensor& y, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto b = bias[tn];
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tm, tk], y[tk, tn], acc);
    out[tm, tn] = acc + b;
  }
  return out;
}

// AFTER: config spec of kernel 'let_after' ({{.*}}): its dots run the general hl::dot lowering
HELION_KERNEL Tensor let_after(const Tensor& x, const Tensor& y, const Tensor& unused) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::dot(x[tm, tk], y[tk, tn], acc);
      auto twice = acc * 2.0f;
    }
    out[tm, tn] = acc;
  }
  return out;
}
