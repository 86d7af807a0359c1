// REQUIRES: frontend
// A K loop that does more than accumulate its dot is not the templates' form: the
// general lowering compiles it (it used to be an error).
// RUN: %helionc compile %s --kernel extra_stmt --emit cuda 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: %helionc spec %s --kernel extra_stmt | FileCheck %s --check-prefix=EXTRA-SPEC
// RUN: %helionc spec %s --kernel ok | FileCheck %s --check-prefix=OK-SPEC
// EXTRA-SPEC: config spec of kernel 'extra_stmt' ({{.*}}): its dots run the general hl::dot lowering
// OK-SPEC: config spec of kernel 'ok' ({{.*}}): its dot runs the GEMM templates
// RUN: %helionc compile %s --kernel epilogue_reduce --emit cuda 2>&1 | FileCheck %s --check-prefix=REDUCE
// RUN: not %helionc compile %s --kernel batched --emit cuda 2>&1 | FileCheck %s --check-prefix=BATCHED
// The template's rules are config errors with the JSON path (Validate.cpp), before
// the recognizer (RecognizeMatmul.cpp) sees the kernel:
// RUN: echo '{"block_sizes": [128, 256, 32]}' > %t.bk.json
// RUN: not %helionc compile %s --kernel ok --config %t.bk.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BK
// RUN: echo '{"num_warps": 4}' > %t.warps.json
// RUN: not %helionc compile %s --kernel ok --config %t.warps.json --emit cuda 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: echo '{"block_sizes": [256, 256, 64], "num_stages": 4}' > %t.big.json
// RUN: not %helionc compile %s --kernel ok --config %t.big.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: echo '{"block_sizes": [128, 128, 64], "num_stages": 8}' > %t.smem.json
// RUN: not %helionc compile %s --kernel ok --config %t.smem.json --emit cuda 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: echo '{"block_sizes": [64, 128, 64], "indexing": "pointer", "num_stages": 1}' > %t.sm80.json
// RUN: not %helionc compile %s --kernel ok --config %t.sm80.json --emit cuda 2>&1 | FileCheck %s --check-prefix=SM80
// BK: error: {{.*}}bk.json: block_sizes[2]: expected at least 64 (the minimum of 'tk' for a tensor-core matmul), got 32
// WARPS: error: {{.*}}warps.json: num_warps: expected 8 or 12 for the sm90 matmul (1 producer and 1 or 2 consumer warpgroups), got 4
// BIG: error: {{.*}}big.json: block_sizes[1]: expected at most 128 columns of 'tn' for the sm90 matmul with 256 rows and num_warps 12 (at most 128 accumulator registers per thread), got 256
// BIG: error: {{.*}}big.json: num_stages: expected at most {{[0-9]+}} for the sm90 matmul with 256 x 256 tiles ({{[0-9]+}} bytes of shared memory, over 232448), got 4
// SMEM: error: {{.*}}smem.json: num_stages: expected at most 6 for the sm90 matmul with 128 x 128 tiles (279680 bytes of shared memory, over 232448), got 8
// SM80: error: {{.*}}sm80.json: num_stages: expected at least 2 for a tensor-core matmul (its load ring), got 1
// Unsupported dot patterns and configs are diagnosed at the source, never a crash.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor ok(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
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
      // EXTRA-NOT: error
      // EXTRA: general hl::dot #0 (EmitMmaDot.cpp)
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
    // REDUCE: :[[@LINE+1]]:29: warning: the GEMM templates do not take this matmul (only pointwise operations, scalars and loads at [tm, tn] may follow the K loop of a tensor-core matmul): its dots run on the general hl::dot lowering
    out[tm, tn] = acc - hl::amax(acc, 1)[hl::all, hl::newaxis];
  }
  return out;
}

HELION_KERNEL Tensor batched(const Tensor& q, const Tensor& k) {
  auto [b, m, d] = q.shape<3>();
  auto n = k.size(1);
  Tensor out = helion::empty({b, m, n}, q.dtype(), q.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n})) {
    // BATCHED: :[[@LINE+1]]:27: error: the general hl::dot lowering takes 2-D blocks, or 3-D ones whose batch tile has block size 1 (hl::block_size({1, ...})); other batched dots lower only as a bmm (a grid loop over [tb, tm, tn] with a K loop, docs/gemm.md) or as flash attention (docs/attention.md)
    out[tb, tm, tn] = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
  }
  return out;
}
