// Held-out kernel (written after the default-config heuristics, to measure them):
// layer norm in two loops over column tiles, with Welford's running mean and M2.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor welford_layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                        double eps) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    auto mean = hl::zeros({tm}, hl::f32);
    auto m2 = hl::zeros({tm}, hl::f32);
    auto count = hl::zeros({tm}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto chunk = x[tm, tn].to(hl::f32);
      auto cnt = hl::sum(hl::full({tm, tn}, 1.0f, hl::f32), 1);
      auto cmean = hl::mean(chunk, 1);
      auto d = chunk - cmean[hl::all, hl::newaxis];
      auto cm2 = hl::sum(d * d, 1);
      auto total = count + cnt;
      auto delta = cmean - mean;
      mean = mean + delta * cnt / total;
      m2 = m2 + cm2 + delta * delta * count * cnt / total;
      count = total;
    }
    auto rstd = hl::rsqrt(m2 / count + eps);
    for (auto tn : hl::tile(n)) {
      auto chunk = x[tm, tn].to(hl::f32);
      auto y = (chunk - mean[hl::all, hl::newaxis]) * rstd[hl::all, hl::newaxis];
      out[tm, tn] = y * weight[tn] + bias[tn];
    }
  }
  return out;
}
