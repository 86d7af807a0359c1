// REQUIRES: frontend
// RUN: %helionc compile %s --kernel tiled_groups --emit cuda 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: %helionc compile %s --kernel from_one --emit cuda 2>&1 | FileCheck %s --check-prefix=FROM-ONE
// RUN: %helionc compile %s --kernel fixed_rows --emit cuda 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: %helionc compile %s --kernel shared_b --emit cuda 2>&1 | FileCheck %s --check-prefix=SHARED-B
// RUN: %helionc compile %s --kernel uses_bounds --emit cuda 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: %helionc compile %s --kernel cols_from_one --emit cuda 2>&1 | FileCheck %s --check-prefix=COLS
// RUN: %helionc compile %s --kernel group_bias --emit cuda | FileCheck %s --check-prefix=BIAS
// RUN: rm -rf %t.f8 && not %helionc compile %examples/grouped_gemm.cpp --emit cubin --dtype f8e4m3,offsets=i32,out=bf16 --arch sm_90a -o %t.f8 2>&1 | FileCheck %s --check-prefix=F8
// F8: grouped_gemm.cpp:[[#]]:{{[0-9]+}}: error: a grouped GEMM of f8e4m3 operands is not supported: the grouped kernels take f16, bf16 and f32
// RUN: echo '{"pid_type": "flat"}' > %t.flat.json
// RUN: not %helionc compile %s --kernel group_bias --config %t.flat.json --emit cuda 2>&1 | FileCheck %s --check-prefix=FLAT
// FLAT: error: {{.*}}flat.json: pid_type: expected one of 'persistent_interleaved' (a grouped GEMM is persistent: its tiles per group are known on the device only), got 'flat'
// RUN: echo '{"block_sizes": [128, 256, 32]}' > %t.bk.json
// RUN: not %helionc compile %s --kernel group_bias --config %t.bk.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BK
// BK: error: {{.*}}bk.json: block_sizes[2]: expected at least 64 (the minimum of 'tk' for a tensor-core matmul), got 32
// The grouped GEMM (grid over groups, row loop between loaded offsets, column loop,
// K loop with one dot) goes to the matmul template's grouped form; each variant it
// does not take (lib/Transforms/RecognizeGroupedMatmul.cpp) is a warning at its location
// and runs its dots on the general lowering instead, never a crash.
#include <helion/hl.h>

using helion::Tensor;

// A tile loop over the groups with a tunable block size: several groups per step.
HELION_KERNEL Tensor tiled_groups(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total, n}, a.dtype(), a.device());
  // TILED: :[[@LINE+1]]:13: warning: the GEMM templates do not take this matmul (the group loop of a grouped matmul must be hl::grid(groups) (one group per step), found a tile loop over 'tg'): its dots run on the general hl::dot lowering
  for (auto tg : hl::tile(groups)) {
    auto start = offsets[tg.begin()];
    auto end = offsets[tg.begin() + 1];
    for (auto tm : hl::tile(start, end))
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[tg.begin(), tk, tn], acc);
        out[tm, tn] = acc;
      }
  }
  return out;
}

HELION_KERNEL Tensor from_one(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total, n}, a.dtype(), a.device());
  // FROM-ONE: :[[@LINE+1]]:13: warning: the GEMM templates do not take this matmul (the group loop of a grouped matmul must start at group 0: hl::grid(groups)): its dots run on the general hl::dot lowering
  for (auto g : hl::grid(1, groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end))
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        out[tm, tn] = acc;
      }
  }
  return out;
}

// Rows that are not [offsets[g], offsets[g + 1]).
HELION_KERNEL Tensor fixed_rows(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g] + 64;
    // ROWS: :[[@LINE+1]]:15: warning: the GEMM templates do not take this matmul (the row loop of a grouped matmul must be hl::tile(start, end) with start = offsets[g] and end = offsets[g + 1], loaded in the group loop): its dots run on the general hl::dot lowering
    for (auto tm : hl::tile(start, end))
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        out[tm, tn] = acc;
      }
  }
  return out;
}

// One B for every group: not the grouped form's b[g, tk, tn].
HELION_KERNEL Tensor shared_b(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total, k] = a.shape<2>();
  auto [k2, n] = b.shape<2>();
  const int64_t groups = offsets.size(0) - 1;
  Tensor out = helion::empty({total, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end))
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          // SHARED-B: :[[@LINE+1]]:36: warning: the GEMM templates do not take this matmul (the second operand of a tensor-core hl::dot must be a load b[g, tk, tn] (or b[g, tn, tk].transpose(0, 1)) of a 3-D tensor): its dots run on the general hl::dot lowering
          acc = hl::dot(a[tm, tk], b[tk, tn], acc);
        out[tm, tn] = acc;
      }
  }
  return out;
}

// The epilogue reads a bound of the row loop.
HELION_KERNEL Tensor uses_bounds(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total, n}, hl::f32, a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end))
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        // BOUNDS: :[[@LINE+1]]:29: warning: the GEMM templates do not take this matmul (a grouped matmul's epilogue may not use the values of its group loop (they are the row loop's bounds)): its dots run on the general hl::dot lowering
        out[tm, tn] = acc + end;
      }
  }
  return out;
}

HELION_KERNEL Tensor cols_from_one(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end))
      // COLS: :[[@LINE+1]]:17: warning: the GEMM templates do not take this matmul (the column loop of a grouped matmul must be hl::tile(n) from 0): its dots run on the general hl::dot lowering
      for (auto tn : hl::tile(1, n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        out[tm, tn] = acc;
      }
  }
  return out;
}

// A per-group bias, bias[g, tn]: the epilogue may index the group.
// BIAS: tensor-core grouped matmul: A = a [M, K] (G groups of rows, offsets offsets), B = b [G, K, N]
// BIAS: void apply(int64 batch__, int64 row__, int64 col__, float acc__) const {
// BIAS: p_bias[batch__ * stride_p_bias_0 + col__ * stride_p_bias_1]
// BIAS: p_out[row__ * stride_p_out_0 + col__ * stride_p_out_1] =
HELION_KERNEL Tensor group_bias(const Tensor& a, const Tensor& b, const Tensor& offsets,
                                const Tensor& bias) {
  auto [total, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  Tensor out = helion::empty({total, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end))
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k))
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        out[tm, tn] = acc + bias[g, tn];
      }
  }
  return out;
}
