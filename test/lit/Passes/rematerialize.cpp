// REQUIRES: frontend
// RUN: %helionc compile %examples/layer_norm.cpp --kernel layer_norm --stop-after rematerialize | FileCheck %s
// RUN: %helionc compile %s --kernel twice --stop-after rematerialize | FileCheck %s --check-prefix=TWICE
// rematerialize marks the lets over a reduction axis that the emitter recomputes at
// each use instead of holding in registers: cheap elementwise values (casts, sums,
// products), and any elementwise value used once. Loads and reductions never are.
// CHECK: let %_t0.5 : dtype(x)[tm, a0] = load %x[%tm, :]
// CHECK-NEXT: let recomputed %row.0 : f32[tm, a0] = cast<f32>(%_t0.5)
// CHECK-NEXT: let %mean.1 : f32[tm, 1] = mean(%row.0, dim=1, keepdim)
// CHECK-NEXT: let recomputed %centered.2 : f32[tm, a0] = sub(%row.0, %mean.1)
// rsqrt is not cheap, but normalized is used once:
// CHECK: let recomputed %normalized.4 : f32[tm, a0] = mul(%centered.2, rsqrt(add(%var.3, %eps)))
#include <helion/hl.h>

using helion::Tensor;

// An exponential used twice stays in registers.
// TWICE: let %e.1 : f32[tm, a0] = exp(%row.0)
// TWICE-NOT: recomputed %e.
HELION_KERNEL Tensor twice(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    auto row = x[tm, hl::all].to(hl::f32);
    auto e = hl::exp(row);
    auto s = hl::sum(e, 1, /*keepdim=*/true);
    out[tm, hl::all] = (e * e / s).to(x.dtype());
  }
  return out;
}
