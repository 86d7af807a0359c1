// REQUIRES: frontend
// RUN: %helionc compile %s --emit ir | FileCheck %s
// RUN: rm -rf %t && %helionc compile %s --emit cubin --dtype f16 -o %t | FileCheck %s --check-prefix=CUBIN
// Helpers that take tiles and tensors (bound to the caller's), scalars of a builtin type
// (converted as C++ converts arguments), store (void helpers), call other helpers, and
// are called inside nested loops.
#include <helion/hl.h>

using helion::Tensor;

constexpr float kScale = 0.5f;

inline float scaled(float s) { return s * kScale; }

template <class T> T square(const T& v) { return v * v; }

inline hl::Block row_sum_sq(const Tensor& x, hl::Tile tm, hl::Tile tk) {
  return hl::sum(square(x[tm, tk].to(hl::f32)), 1);
}

inline void write_scaled(Tensor& out, hl::Tile tm, const hl::Block& v, double eps) {
  out[tm] = v * scaled(eps);
}

// CHECK-LABEL: kernel sum_sq(%x: tensor<rank 2>, %eps: f64, %m: i64 captured, %k: i64 captured, %out: tensor<rank 1> captured)
// CHECK:      for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:   let %acc.0 = full([tm], 0.0, f32)
// CHECK-NEXT:   for %tk in tile(0, %k) block bs1 {
// CHECK-NEXT:     let %v.1 = cast<f32>(load %x[%tm, %tk])
// CHECK-NEXT:     %acc.0 = add(%acc.0, sum(mul(%v.1, %v.1), dim=1))
// CHECK-NEXT:   }
// CHECK-NEXT:   let %v.2 = %acc.0
// CHECK-NEXT:   let %eps.3 = cast<f64>(%eps)
// CHECK-NEXT:   let %s.4 = cast<f32>(%eps.3)
// CHECK-NEXT:   store %out[%tm] = mul(%v.2, cast<f32>(mul(%s.4, 0.5)))
// CHECK-NEXT: }
// CUBIN: helpers.sum_sq.f16{{.*}}.cubin: sum_sq_kernel<
HELION_KERNEL Tensor sum_sq(const Tensor& x, double eps) {
  auto [m, k] = x.shape<2>();
  Tensor out = helion::empty({m}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto acc = hl::zeros({tm}, hl::f32);
    for (auto tk : hl::tile(k))
      acc += row_sum_sq(x, tm, tk);
    write_scaled(out, tm, acc, eps);
  }
  return out;
}
