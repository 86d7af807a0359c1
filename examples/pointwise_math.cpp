// The math functions of the language in one elementwise kernel: pow, erf, floor,
// ceil, round (half to even), sin, cos, log1p, exp2 and log2, computed in f32 for
// f16/bf16/f32 tensors.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor math_mix(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    auto v = x[tile];
    auto a = hl::abs(v);
    auto smooth = hl::sin(v) * hl::cos(v) + hl::erf(v) + hl::log1p(a) + hl::pow(a, 1.5f);
    auto steps = hl::floor(v * 4.0f) - hl::ceil(v) + hl::round(v * 2.0f);
    out[tile] = smooth + steps + hl::exp2(-a) + hl::log2(a + 1.0f);
  }
  return out;
}
