// REQUIRES: frontend
// RUN: not %helionc compile %s --kernel no_rescale --emit cuda 2>&1 | FileCheck %s --check-prefix=RESCALE
// RUN: not %helionc compile %s --kernel plain_sum --emit cuda 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: not %helionc compile %s --kernel stale_max --emit cuda 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not %helionc compile %s --kernel score_load --emit cuda 2>&1 | FileCheck %s --check-prefix=SCORE
// RUN: not %helionc compile %s --kernel epilogue_load --emit cuda 2>&1 | FileCheck %s --check-prefix=EPI
// RUN: not %helionc compile %s --kernel store_in_loop --emit cuda 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: echo '{"block_sizes": [256, 64], "num_warps": 4, "num_stages": 3, "indexing": "pointer"}' > %t.bad.json
// RUN: not %helionc compile %s --kernel ok --config %t.bad.json --emit cuda 2>&1 | FileCheck %s --check-prefix=CONFIG
// RUN: echo '{"block_sizes": [128, 256], "num_warps": 4, "indexing": "tensor_descriptor", "pid_type": "persistent_blocked", "l2_groupings": [8]}' > %t.path.json
// RUN: not %helionc compile %s --kernel ok --config %t.path.json --emit cuda 2>&1 | FileCheck %s --check-prefix=PATH
// RUN: echo '{"block_sizes": [64, 256], "num_warps": 12, "num_stages": 5}' > %t.sm90.json
// RUN: not %helionc compile %s --kernel ok --config %t.sm90.json --emit cuda 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: echo '{"block_sizes": [128, 128], "num_warps": 12, "num_stages": 4}' > %t.smem.json
// RUN: not %helionc compile %s --kernel ok --config %t.smem.json --emit cuda 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: echo '{"block_sizes": [192, 128], "num_warps": 12}' > %t.rows.json
// RUN: not %helionc compile %s --kernel ok --config %t.rows.json --emit cuda 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: echo '{"block_sizes": [256, 128], "num_warps": 16, "num_stages": 3}' > %t.c3.json
// RUN: not %helionc compile %s --kernel ok --config %t.c3.json --emit cuda 2>&1 | FileCheck %s --check-prefix=C3
// RUN: echo '{"block_sizes": [128, 64], "num_warps": 4, "num_stages": 2, "indexing": ["tensor_descriptor", "pointer", "pointer", "pointer"]}' > %t.mix.json
// RUN: not %helionc compile %s --kernel ok --config %t.mix.json --emit cuda 2>&1 | FileCheck %s --check-prefix=MIX
// Flash-attention shapes the CUDA backend does not lower are diagnosed at the source
// (lib/Transforms/RecognizeAttention.cpp), never a crash or silently different math; configs it cannot
// instantiate are config errors with their JSON path (Validate.cpp).
// CONFIG: error: {{.*}}.bad.json: num_stages: expected 2 for flash attention (FlashAttention-2's K and V schedule), got 3
// CONFIG: error: {{.*}}.bad.json: block_sizes[0]: expected 64 or 128 rows of 'tm' for flash attention with num_warps 4 (16 or 32 per warp), got 256
// tensor_descriptor asks for the sm90 kernel, which has its own rules.
// PATH: error: {{.*}}.path.json: num_warps: expected 8, 12 or 16 for the sm90 flash attention (1 producer and 1 to 3 consumer warpgroups), got 4
// PATH: error: {{.*}}.path.json: block_sizes[1]: expected 64 or 128 keys of 'tn' for the sm90 flash attention, got 256
// PATH: error: {{.*}}.path.json: pid_type: expected 'flat', 'xyz' or 'persistent_interleaved' for flash attention, got 'persistent_blocked'
// PATH: error: {{.*}}.path.json: l2_groupings[0]: expected 1 for flash attention (CTAs run b-major), got 8
// The sm90 kernel's rules (indexing tensor_descriptor, the default):
// SM90: error: {{.*}}.sm90.json: num_stages: expected 2, 3 or 4 for the sm90 flash attention (the TMA ring of K and V blocks), got 5
// SM90: error: {{.*}}.sm90.json: block_sizes[0]: expected 128 rows of 'tm' for the sm90 flash attention with num_warps 12 (64 per consumer warpgroup), got 64
// SM90: error: {{.*}}.sm90.json: block_sizes[1]: expected 64 or 128 keys of 'tn' for the sm90 flash attention, got 256
// SMEM: error: {{.*}}.smem.json: num_stages: expected at most 3 for the sm90 flash attention with num_warps 12 and 128 keys per block (296088 bytes of shared memory at head dim 128, over 232448)
// 192 rows (3 consumers) is the one row tile off the powers of two, and only with 16 warps:
// ROWS: error: {{.*}}.rows.json: block_sizes[0]: expected a power of two, got 192
// ROWS: error: {{.*}}.rows.json: block_sizes[0]: expected 128 rows of 'tm' for the sm90 flash attention with num_warps 12 (64 per consumer warpgroup), got 192
// C3: error: {{.*}}.c3.json: block_sizes[0]: expected 192 rows of 'tm' for the sm90 flash attention with num_warps 16 (64 per consumer warpgroup), got 256
// C3: error: {{.*}}.c3.json: num_stages: expected at most 2 for the sm90 flash attention with num_warps 16 and 128 keys per block (246904 bytes of shared memory at head dim 128, over 232448)
// MIX: error: {{.*}}.mix.json: indexing: expected tensor_descriptor on every load and store (the sm90 kernel) or on none (cp.async) for flash attention, got a mix
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor ok(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
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
      // SCORE: :[[@LINE+1]]:82: error: the attention score may use only pointwise operations, scalars and the indices of tm and tn on hl::dot(q, k^T) (no loads, reductions or other tiles)
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
