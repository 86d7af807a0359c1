// REQUIRES: frontend
// RUN: not %helionc compile %s --kernel extra_stmt --emit cuda 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not %helionc compile %s --kernel epilogue_reduce --emit cuda 2>&1 | FileCheck %s --check-prefix=REDUCE
// RUN: not %helionc compile %s --kernel batched --emit cuda 2>&1 | FileCheck %s --check-prefix=BATCHED
// RUN: echo '{"block_sizes": [128, 256, 32]}' > %t.bk.json
// RUN: not %helionc compile %s --kernel ok --config %t.bk.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BK
// RUN: echo '{"num_warps": 4}' > %t.warps.json
// RUN: not %helionc compile %s --kernel ok --config %t.warps.json --emit cuda 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: echo '{"block_sizes": [256, 256, 64], "num_stages": 4}' > %t.big.json
// RUN: not %helionc compile %s --kernel ok --config %t.big.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BIG
// Unsupported dot patterns and configs are diagnosed at the source, never a crash.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor ok(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  // BK: :[[@LINE+4]]:3: error: config: block_sizes[2] (tk) must be 64 for a tensor-core matmul (one 128-byte swizzle row of 16-bit elements), got 32
  // WARPS: :[[@LINE+3]]:3: error: config: num_warps must be 8 or 12 for the sm90 matmul (4 x (1 producer + 1 or 2 consumer warpgroups)), got 4
  // BIG: :[[@LINE+2]]:3: error: config: block sizes 256 x 256 need 256 accumulator registers per thread with num_warps 12; at most 128 fit
  // BIG: :[[@LINE+1]]:3: error: config: num_stages 4 with 256 x 256 tiles needs {{[0-9]+}} bytes of shared memory, over the 227 KB of a CTA
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
    out[tm, tn] = acc;
  }
  return out;
}

HELION_KERNEL Tensor extra_stmt(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
      // EXTRA: :[[@LINE+1]]:7: error: the K loop of a tensor-core matmul may only accumulate hl::dot into its accumulator
      acc = acc * 2.0f;
    }
    out[tm, tn] = acc;
  }
  return out;
}

HELION_KERNEL Tensor epilogue_reduce(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
    // REDUCE: :[[@LINE+1]]:29: error: only pointwise operations, scalars and loads at [tm, tn] may follow the K loop of a tensor-core matmul
    out[tm, tn] = acc - hl::amax(acc, 1)[hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor batched(const Tensor& q, const Tensor& k) {
  auto [b, m, d] = q.shape<3>();
  auto n = k.size(1);
  Tensor out = helion::empty({b, m, n}, q.dtype(), q.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n})) {
    // BATCHED: :[[@LINE+1]]:27: error: batched (3-D) hl::dot is not supported by the CUDA backend yet
    out[tb, tm, tn] = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
  }
  return out;
}
