// REQUIRES: frontend
// RUN: echo '{"block_sizes": [64, 128, 256, 64]}' > %t.tb.json
// RUN: not %helionc compile %s --kernel bmm_tunable_batch --config %t.tb.json --emit cuda 2>&1 | FileCheck %s --check-prefix=TB
// RUN: %helionc compile %s --kernel bmm_tunable_batch --emit cuda 2>&1 | FileCheck %s --check-prefix=TB1
// RUN: %helionc compile %s --kernel bmm_bad_store --emit cuda 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: %helionc compile %s --kernel bmm_bad_operand --emit cuda 2>&1 | FileCheck %s --check-prefix=OPERAND
// The fallback's default blocks fit 48 KB with f32 operands too (the batched dot's last two
// dims count, UnrolledSize.cpp), so the f32 instantiation compiles:
// RUN: %helionc compile %s --kernel bmm_bad_store --emit cubin --arch sm_90a --dtype f32 -o %t.f32 2>&1 | FileCheck %s --check-prefix=STORE-F32
// STORE-F32: bmm_bad_store_kernel<float, float, float, {{.*}}> (sm_90a,
// RUN: echo '{"block_sizes": [16], "reduction_loops": [32, null]}' > %t.looped.json
// RUN: not %helionc compile %s --kernel dot_rows --config %t.looped.json --emit cuda 2>&1 | FileCheck %s --check-prefix=LOOPED
// RUN: not %helionc compile %s --kernel dot_f64 --emit cuda 2>&1 | FileCheck %s --check-prefix=F64
// RUN: echo '{"block_sizes": [256, 256, 128, 128]}' > %t.big.json
// RUN: not %helionc compile %examples/dot_generic.cpp --config %t.big.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: dot_generic.cpp:22:22: error: config too large: the blocks of this hl::dot ([256, 128] x [128, 128]) need 104448 bytes of shared memory in the general lowering, more than 49152; lower block_sizes
// What stays unsupported around hl::dot is diagnosed at the source, never a crash:
// the bmm form of the GEMM templates (lib/Transforms/RecognizeMatmul.cpp) and the general lowering
// (EmitDot.cpp).
#include <helion/hl.h>

using helion::Tensor;

// The batch tile must have block size 1: the spec's range of a tunable one is [1, 1]
// (the matmul rules, TemplateRules.h), so the default config compiles.
// TB: error: {{.*}}tb.json: block_sizes[0]: expected at most 1 (the maximum of 'tb' for the batch tile of a batched tensor-core matmul), got 64
// TB1: // config: {"block_sizes": [1, 128, 256, 64],
// TB1: G__::run_batched(
HELION_KERNEL Tensor bmm_tunable_batch(const Tensor& x, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto n = y.size(2);
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n})) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tb, tm, tk], y[tb, tk, tn], acc);
    out[tb, tm, tn] = acc;
  }
  return out;
}

HELION_KERNEL Tensor bmm_bad_store(const Tensor& x, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto n = y.size(2);
  Tensor out = helion::empty({b, n, m}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tb, tm, tk], y[tb, tk, tn], acc);
    // STORE: :[[@LINE+1]]:5: warning: the GEMM templates do not take this matmul (a batched tensor-core matmul may store only to out[tb, tm, tn]): its dots run on the general hl::dot lowering
    out[tb, tn, tm] = acc.transpose(1, 2);
  }
  return out;
}

HELION_KERNEL Tensor bmm_bad_operand(const Tensor& x, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto n = y.size(2);
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      // OPERAND: :[[@LINE+1]]:50: warning: the GEMM templates do not take this matmul (the second operand of a tensor-core hl::dot must be a load y[tb, tk, tn] (or y[tb, tn, tk].transpose(1, 2)) of a 3-D tensor): its dots run on the general hl::dot lowering
      acc = hl::dot(x[tb, tm, tk], y[tk, tb, tn].transpose(0, 1), acc);
    out[tb, tm, tn] = acc;
  }
  return out;
}

// A dot of whole rows over a looped reduction axis.
// LOOPED: :[[@LINE+8]]:28: error: a general hl::dot over a looped reduction axis is not supported; use reduction_loops: null (persistent) for this kernel
HELION_KERNEL Tensor dot_rows(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto n = w.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto xs = x[tm, hl::all];
    auto ws = w[hl::all, hl::all];
    out[tm, hl::all] = hl::dot(xs, ws);
  }
  return out;
}

HELION_KERNEL Tensor dot_f64(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto n = w.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    // F64: :[[@LINE+1]]:47: error: hl::dot of f64 blocks is not supported by the CUDA backend (the tensor cores take bf16, f16 and f32 as tf32)
    out[tm, hl::all] = hl::dot(x[tm, hl::all].to(hl::f64), w[hl::all, hl::all]);
  }
  return out;
}
