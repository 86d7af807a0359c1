// REQUIRES: frontend
// RUN: %helionc compile %examples/jagged_sum.cpp --stop-after accumulate-partials | FileCheck %s --check-prefix=JAGGED
// RUN: %helionc compile %examples/jagged_sum.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %s --stop-after accumulate-partials | FileCheck %s
// RUN: rm -rf %t && %helionc compile %s --emit cubin --dtype bf16 --arch sm_80 -o %t
// RUN: rm -rf %t && %helionc compile %examples/jagged_sum.cpp --emit cubin --dtype values=bf16,offsets=i64 --arch sm_90a -o %t
// accumulate-partials: a tile loop that adds each tile's sum to an accumulator keeps
// an f32 partial sum per element of the tile instead and reduces it once, after the
// loop: one cross-thread reduction per row rather than one per tile. Only summands
// that are zero past the tile's end qualify (masked loads, their casts, negations,
// sums and products): the partial sums past the end stay zero, so the final sum
// needs no bounds.

// JAGGED:      let %acc.2 : f32[td] = full([td], 0.0, f32)
// JAGGED-NEXT: let %_p.5 : f32[tk, td] = full([tk, td], 0.0, f32)
// JAGGED-NEXT: for %tk in tile(%start.0, %end.1) block bs2 {
// JAGGED-NEXT:   let %_t0.3 : dtype(values)[tk, td] = load %values[%tk, %td]
// JAGGED-NEXT:   %_p.5 : f32[tk, td] = add(%_p.5, cast<f32>(%_t0.3))
// JAGGED-NEXT: }
// JAGGED-NEXT: let %_t1.4 : f32[td] = sum(%_p.5, dim=0, zero-padded)
// JAGGED-NEXT: %acc.2 : f32[td] = add(%acc.2, %_t1.4)

// The final sum runs outside the tk loop, without its bounds.
// CUDA:      v5__p[i_t1][i_t2] = float((float(v5__p[i_t1][i_t2]) + float(float(hd::to_compute(v3__t0[i_t1][i_t2])))));
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA-NEXT: }
// CUDA:      if (true) acc = OpSum()(acc, float(v5__p[i_t1][i_t2]));

#include <helion/hl.h>

using helion::Tensor;

// A product of two loads qualifies, and so does a sum written acc = sum + acc.
// CHECK-LABEL: kernel dot_rows
// CHECK:       let %_p.{{[0-9]+}} : f32[tm, tk] = full([tm, tk], 0.0, f32)
// CHECK:       for %tk in
// CHECK:         %_p.{{[0-9]+}} : f32[tm, tk] = add(%_p.{{[0-9]+}}, mul(
// CHECK-NEXT:  }
// CHECK-NEXT:  let %{{.*}} : f32[tm] = sum(%_p.{{[0-9]+}}, dim=1, zero-padded)
// CHECK-NEXT:  %acc.{{[0-9]+}} : f32[tm] = add(%{{.*}}, %acc.{{[0-9]+}})
HELION_KERNEL Tensor dot_rows(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto acc = hl::zeros({tm}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::sum(x[tm, tk].to(hl::f32) * y[tm, tk].to(hl::f32), 1) + acc;
    out[tm] = acc;
  }
  return out;
}

// exp() of a masked load is 1 past the end, not 0: the per-tile sum stays.
// CHECK-LABEL: kernel exp_rows
// CHECK-NOT:   %_p
// CHECK:       sum(
// CHECK:       }
HELION_KERNEL Tensor exp_rows(const Tensor& x) {
  auto [m, k] = x.shape<2>();
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto acc = hl::zeros({tm}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = acc + hl::sum(hl::exp(x[tm, tk].to(hl::f32)), 1);
    out[tm] = acc;
  }
  return out;
}

// The accumulator is read inside the loop (a running total): left alone.
// CHECK-LABEL: kernel running
// CHECK-NOT:   %_p
// CHECK:       sum(
HELION_KERNEL Tensor running(const Tensor& x) {
  auto [m, k] = x.shape<2>();
  Tensor out = helion::empty({m, k}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto acc = hl::zeros({tm}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = acc + hl::sum(x[tm, tk].to(hl::f32), 1);
      out[tm, tk] = x[tm, tk] + acc[hl::all, hl::newaxis];
    }
  }
  return out;
}

// A sum in the tensor's own 16-bit dtype would round each partial: left alone.
// CHECK-LABEL: kernel narrow
// CHECK-NOT:   %_p
// CHECK:       sum(
HELION_KERNEL Tensor narrow(const Tensor& x) {
  auto [m, k] = x.shape<2>();
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    auto acc = hl::zeros({tm}, hl::f16);
    for (auto tk : hl::tile(k))
      acc = acc + hl::sum(x[tm, tk], 1);
    out[tm] = acc;
  }
  return out;
}
