// out = relu(x @ w1) @ w2, a two-layer MLP per [tm, tn] tile: two chained dots,
// the second of a computed block (the activation, cast back to x's dtype). No
// template has this shape: the general hl::dot lowering runs it (mma.sync, wgmma on
// sm_90a; results in registers, the loads staged in shared memory, the activation the
// second dot's A operand in registers; docs/gemm.md). The hidden activations are recomputed for
// each column tile tn: an example of the lowering, not a fast MLP.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor mlp_relu(const Tensor& x, const Tensor& w1, const Tensor& w2) {
  auto [m, k] = x.shape<2>();
  auto [k2, h] = w1.shape<2>();
  auto [h2, n] = w2.shape<2>();
  HELION_CHECK(k == k2 && h == h2, "mlp_relu: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto th : hl::tile(h)) {
      auto hidden = hl::zeros({tm, th}, hl::f32);
      for (auto tk : hl::tile(k)) {
        hidden = hl::dot(x[tm, tk], w1[tk, th], hidden);
      }
      auto act = hl::maximum(hidden, hl::zeros({tm, th}, hl::f32)).to(x.dtype());
      acc = hl::dot(act, w2[th, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}
