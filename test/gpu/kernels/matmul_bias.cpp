// A matmul with an epilogue that reads a bias by column and applies relu:
// out = relu(x @ y + bias[None, :]), for scripts/matmul_check.sh.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor matmul_bias(const Tensor& x, const Tensor& y, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = y.shape<2>();
  HELION_CHECK(k == k2, "matmul_bias: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
    out[tm, tn] = hl::maximum(acc + bias[tn][hl::newaxis, hl::all], 0.0f);
  }
  return out;
}
