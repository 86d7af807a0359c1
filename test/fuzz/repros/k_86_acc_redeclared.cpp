#include <helion/hl.h>

#include <cmath>
#include <tuple>

using helion::Tensor;

HELION_KERNEL std::tuple<Tensor, Tensor> k_86(const Tensor& x0, const Tensor& x1, const Tensor& w) {
  auto [m, n] = x0.shape<2>();
  HELION_CHECK(x1.sizes() == x0.sizes(), "x1: shape");
  Tensor o0 = helion::zeros({m, n}, hl::f16, x0.device());
  Tensor o1 = helion::empty({m, n}, hl::f32, x0.device());
  for (auto tm1 : hl::tile(m)) {
    o0[tm1, hl::all] = hl::where((tm1.index()[hl::all, hl::newaxis] < 5), w[hl::all][hl::newaxis, hl::all].to(hl::f32), hl::sigmoid(hl::exp(x1[tm1, hl::all])));
  }
  for (auto i2 : hl::grid(m)) {
    auto v3 = -hl::where((x1[i2, hl::all] >= x1[i2, hl::all].to(hl::f32)), x1[i2, hl::all], 0.0);
    o1[i2, hl::all] = hl::where((x0[i2, hl::all] < x1[i2, hl::all].to(hl::f32)), hl::maximum(hl::minimum(x1[i2, hl::all], x1[i2, hl::all].to(hl::f32)) + 0.5, hl::sqrt(hl::abs(hl::sigmoid(v3)) + 1.0)), ((hl::sum(v3, 0, true)) * 0.0078125) - (hl::mean(w[hl::all] + v3, 0, /*keepdim=*/true) / 4));
  }
  return {o0, o1};
}
