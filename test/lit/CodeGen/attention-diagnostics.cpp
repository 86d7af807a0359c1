// REQUIRES: frontend
// RUN: not %helionc compile %s --kernel no_rescale --emit cuda 2>&1 | FileCheck %s --check-prefix=RESCALE
// RUN: not %helionc compile %s --kernel plain_sum --emit cuda 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: not %helionc compile %s --kernel stale_max --emit cuda 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not %helionc compile %s --kernel score_load --emit cuda 2>&1 | FileCheck %s --check-prefix=SCORE
// RUN: not %helionc compile %s --kernel epilogue_load --emit cuda 2>&1 | FileCheck %s --check-prefix=EPI
// RUN: not %helionc compile %s --kernel store_in_loop --emit cuda 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: echo '{"block_sizes": [256, 64], "num_warps": 2, "num_stages": 3}' > %t.bad.json
// RUN: not %helionc compile %s --kernel ok --config %t.bad.json --emit cuda 2>&1 | FileCheck %s --check-prefix=CONFIG
// RUN: echo '{"block_sizes": [128, 256], "indexing": "tensor_descriptor", "pid_type": "persistent_blocked", "l2_groupings": [8]}' > %t.path.json
// RUN: not %helionc compile %s --kernel ok --config %t.path.json --emit cuda 2>&1 | FileCheck %s --check-prefix=PATH
// Flash-attention shapes the CUDA backend does not lower are diagnosed at the source
// (AttentionPlan.cpp), never a crash or silently different math.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor ok(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  // CONFIG: :[[@LINE+7]]:3: error: config: num_warps must be 4 or 8 for flash attention, got 2
  // CONFIG: :[[@LINE+6]]:3: error: config: block_sizes[0] (tm) must be 16 or 32 rows per warp for flash attention (32 or 64 with num_warps 2), got 256
  // CONFIG: :[[@LINE+5]]:3: error: config: num_stages must be 2 for flash attention
  // PATH: :[[@LINE+4]]:3: error: config: block_sizes[1] (tn) must be 32, 64 or 128 for flash attention, got 256
  // PATH: :[[@LINE+3]]:3: error: config: indexing tensor_descriptor: flash attention has no TMA path yet; use pointer or block_ptr (cp.async)
  // PATH: :[[@LINE+2]]:3: error: config: pid_type must be flat or xyz for flash attention
  // PATH: :[[@LINE+1]]:3: error: config: l2_groupings must be 1 for flash attention
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2)) * scale;
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha[hl::all, hl::all, hl::newaxis]);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor no_rescale(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      li = li * hl::exp(mi - mi_next) + hl::sum(p, 2);
      // RESCALE: :[[@LINE+1]]:7: error: flash attention must rescale its output by the softmax correction before adding p @ v
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor plain_sum(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      // SUM: :[[@LINE+1]]:7: error: the running sum of flash attention must be li = li * alpha + hl::sum(p, 2)
      li = li + hl::sum(p, 2);
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor stale_max(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      // STALE: :[[@LINE+1]]:7: error: the running max of flash attention must be carried to the next key block: mi = mi_next at the end of the loop
      mi = hl::amax(s, 2);
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor score_load(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& bias) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      // SCORE: :[[@LINE+1]]:82: error: the attention score may use only pointwise operations and scalars on hl::dot(q, k^T) (no loads, reductions or other tiles)
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2)) + bias[tb, tm, tn];
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha[hl::all, hl::all, hl::newaxis]);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor epilogue_load(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha[hl::all, hl::all, hl::newaxis]);
      mi = mi_next;
    }
    // EPI: :[[@LINE+1]]:70: error: only pointwise operations on acc, li, mi and scalars may follow the key loop of flash attention
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis] + q[tb, tm, hl::all];
  }
  return out;
}

HELION_KERNEL Tensor store_in_loop(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha[hl::all, hl::all, hl::newaxis]);
      mi = mi_next;
      // STORE: :[[@LINE+1]]:7: error: the key loop of flash attention may only compute values and update its accumulators (no stores or nested loops)
      out[tb, tm, hl::all] = acc;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
  }
  return out;
}
