// out = relu(x @ y + bias): a matrix product with a fused epilogue. The
// epilogue is pointwise code after the K loop; the zero tile of hl::maximum is
// a constant tile of the epilogue's shape.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor matmul_bias_relu(const Tensor& x, const Tensor& y, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = y.shape<2>();
  HELION_CHECK(k == k2, "matmul_bias_relu: inner dimensions differ");
  HELION_CHECK(bias.dim() == 1 && bias.size(0) == n, "matmul_bias_relu: bias must be [n]");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
    }
    out[tm, tn] = hl::maximum(acc + bias[tn], hl::zeros({tm, tn}, hl::f32));
  }
  return out;
}
