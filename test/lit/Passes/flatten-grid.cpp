// REQUIRES: frontend
// RUN: %helionc compile %s --stop-after flatten-grid | FileCheck %s
// RUN: %helionc compile %s --kernel nested_matmul --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc spec %s --kernel nested_matmul | FileCheck %s --check-prefix=SPEC
// RUN: %helionc compile %s --kernel nested_bmm --emit cuda | FileCheck %s --check-prefix=BMM
// RUN: echo '{"range_unroll_factors": [0, 2]}' > %t.old.json
// RUN: not %helionc compile %s --kernel nested_add --config %t.old.json --emit cuda 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: %helionc compile %s --kernel columns_outer --emit cuda | FileCheck %s --check-prefix=COLS
// RUN: rm -rf %t.c2 && %helionc compile %s --kernel fixed_small --emit cubin --dtype bf16 --arch sm_90a -o %t.c2
// RUN: rm -rf %t.cubin && %helionc compile %s --kernel nested_add --emit cubin --dtype f32 --arch sm_90a -o %t.cubin
// flatten-grid joins a grid loop's only statement, a tile loop whose iterations are
// independent, into the grid. A loop that carries a value, stores without its tile,
// reads what another iteration writes, has bounds of the program's own tile or sits
// beside other statements stays a loop.
#include <helion/hl.h>
using helion::Tensor;

// CHECK-LABEL: kernel nested_matmul
// CHECK:       for %tm in tile(0, %m) block bs0, %tn in tile(0, %n) block bs1 {
// CHECK-NEXT:    let %acc.0
// CUDA:        hd::Gemm<
// SPEC:        l2_groupings
// SPEC-NEXT:     [0] (tm, tn)
// SPEC:        tensor-core matmul (hl::dot) restrictions:
HELION_KERNEL Tensor nested_matmul(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tm : hl::tile(m))
    for (auto tn : hl::tile(n)) {
      auto acc = hl::zeros({tm, tn}, hl::f32);
      for (auto tk : hl::tile(k))
        acc = hl::dot(x[tm, tk], w[tk, tn], acc);
      out[tm, tn] = acc.to(x.dtype());
    }
  return out;
}

// Three loops deep, an in-place update (the load reads the store's own subscripts).
// CHECK-LABEL: kernel nested_add
// CHECK:       for %tb in tile(0, %b) block bs0, %tm in tile(0, %m) block bs1, %tn in tile(0, %n) block bs2 {
// CHECK-NEXT:    store %x[%tb, %tm, %tn] = add(load %x[%tb, %tm, %tn], load %y[%tb, %tm, %tn])
// CHECK-NEXT:  }
HELION_KERNEL void nested_add(Tensor& x, const Tensor& y) {
  auto [b, m, n] = x.shape<3>();
  for (auto tb : hl::tile(b))
    for (auto tm : hl::tile(m))
      for (auto tn : hl::tile(n))
        x[tb, tm, tn] = x[tb, tm, tn] + y[tb, tm, tn];
}

// A config written for the loops as nested: they have no range_unroll_factors entries now.
// OLD: range_unroll_factors: expected 0 entries (the kernel has no inner tile loop (a loop with independent iterations that is a grid loop's only statement is part of the grid)), got 2

// Atomic adds into a tensor only atomics touch: their sum does not depend on the order.
// CHECK-LABEL: kernel nested_atomic
// CHECK:       for %tm in tile(0, %m) block bs0, %tn in tile(0, %n) block bs1 {
HELION_KERNEL void nested_atomic(const Tensor& x, Tensor& rows) {
  auto [m, n] = x.shape<2>();
  for (auto tm : hl::tile(m))
    for (auto tn : hl::tile(n))
      hl::atomic_add(rows, {tm}, hl::sum(x[tm, tn], 1));
}

// Four loops: the grid takes three tiles at most.
// CHECK-LABEL: kernel four_deep
// CHECK:       for %ta in tile(0, %a) block bs0, %tb in tile(0, %b) block bs1, %tc in tile(0, %c) block bs2 {
// CHECK-NEXT:    for %td in tile(0, %d) block bs3 {
HELION_KERNEL void four_deep(Tensor& x) {
  auto [a, b, c, d] = x.shape<4>();
  for (auto ta : hl::tile(a))
    for (auto tb : hl::tile(b))
      for (auto tc : hl::tile(c))
        for (auto td : hl::tile(d))
          x[ta, tb, tc, td] = x[ta, tb, tc, td] * 2.0f;
}

// A value carried from one column tile to the next.
// CHECK-LABEL: kernel carried
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK:         for %tn in tile(0, %n) block bs1 {
HELION_KERNEL Tensor carried(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto total = hl::zeros({tm}, hl::f32);
    for (auto tn : hl::tile(n))
      total = total + hl::sum(x[tm, tn], 1);
    out[tm] = total;
  }
  return out;
}

// A store that every column tile overwrites (the last one's value is the result).
// CHECK-LABEL: kernel last_wins
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:    for %tn in tile(0, %n) block bs1 {
HELION_KERNEL Tensor last_wins(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, hl::f32, x.device());
  for (auto tm : hl::tile(m))
    for (auto tn : hl::tile(n))
      out[tm] = hl::sum(x[tm, tn], 1);
  return out;
}

// A read of what another iteration writes (the next column tile's neighbour).
// CHECK-LABEL: kernel reads_other
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:    for %tn in tile(0, %n) block bs1 {
HELION_KERNEL void reads_other(Tensor& x) {
  auto [m, n] = x.shape<2>();
  for (auto tm : hl::tile(m))
    for (auto tn : hl::tile(n))
      x[tm, tn] = hl::sum(x[tm, hl::all], 1)[hl::all, hl::newaxis] + x[tm, tn];
}

// Bounds that depend on the program's own tile (a triangle).
// CHECK-LABEL: kernel triangle
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:    for %tn in tile(0, {{.*}}) block bs1 {
HELION_KERNEL Tensor triangle(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::zeros({m, n}, x.dtype(), x.device());
  for (auto tm : hl::tile(m))
    for (auto tn : hl::tile(tm.end()))
      out[tm, tn] = x[tm, tn];
  return out;
}

// A grid loop with another statement beside the inner loop.
// CHECK-LABEL: kernel beside
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK:         for %tn in tile(0, %n) block bs1 {
HELION_KERNEL Tensor beside(const Tensor& x, const Tensor& s) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto scale = s[tm];
    for (auto tn : hl::tile(n))
      out[tm, tn] = x[tm, tn] * scale[hl::all, hl::newaxis];
  }
  return out;
}

// An inner loop over two tiles: a batched matmul written per batch takes the bmm template.
// CHECK-LABEL: kernel nested_bmm
// CHECK:       for %tb in tile(0, %b) block bs0, %tm in tile(0, %m) block bs1, %tn in tile(0, %n) block bs2 {
// BMM:         hd::Gemm<{{.*}}, true
HELION_KERNEL Tensor nested_bmm(const Tensor& x, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto [b2, k2, n] = y.shape<3>();
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto tb : hl::tile(b, hl::block_size(1)))
    for (auto [tm, tn] : hl::tile({m, n})) {
      auto acc = hl::zeros({tb, tm, tn}, hl::f32);
      for (auto tk : hl::tile(k))
        acc = hl::dot(x[tb, tm, tk], y[tb, tk, tn], acc);
      out[tb, tm, tn] = acc.to(x.dtype());
    }
  return out;
}

// An inner loop over two tiles whose store misses one: each tb tile overwrites out[tm, ta].
// CHECK-LABEL: kernel misses_a_tile
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:    for %ta in tile(0, %a) block bs1, %tb in tile(0, %b) block bs2 {
HELION_KERNEL Tensor misses_a_tile(const Tensor& x) {
  auto [m, a, b] = x.shape<3>();
  Tensor out = helion::empty({m, a}, hl::f32, x.device());
  for (auto tm : hl::tile(m))
    for (auto [ta, tb] : hl::tile({a, b}))
      out[tm, ta] = hl::sum(x[tm, ta, tb], 2);
  return out;
}

// Column tiles outside: the joined grid takes the dot's order (tm, tn), the template's.
// CHECK-LABEL: kernel columns_outer
// CHECK:       for %tm in tile(0, %m) block bs1, %tn in tile(0, %n) block bs0 {
// COLS:        hd::Gemm<
HELION_KERNEL Tensor columns_outer(const Tensor& x, const Tensor& w, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tn : hl::tile(n))
    for (auto tm : hl::tile(m)) {
      auto acc = hl::zeros({tm, tn}, hl::f32);
      for (auto tk : hl::tile(k))
        acc = hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1), acc);
      out[tm, tn] = hl::maximum(acc + bias[tn], hl::zeros({tm, tn}, hl::f32));
    }
  return out;
}

// Column tiles the source fixes at 16, below the matmul template's 64: joined, the kernel
// would be the template's and fail its rules, so the loops stay (the general lowering).
// CHECK-LABEL: kernel fixed_small
// CHECK:       for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:    for %tn in tile(0, %n) block bs1 {
HELION_KERNEL Tensor fixed_small(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto tm : hl::tile(m))
    for (auto tn : hl::tile(n, hl::block_size(16))) {
      auto acc = hl::zeros({tm, tn}, hl::f32);
      for (auto tk : hl::tile(k))
        acc = hl::dot(x[tm, tk], w[tk, tn], acc);
      out[tm, tn] = acc;
    }
  return out;
}
