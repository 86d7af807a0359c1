// GELU-gated product with a user helper: device code calls the kernel author's own
// inline function, which helionc inlines (each argument becomes a device variable).
//   out = gelu(x) * gelu(y),  gelu(v) = v/2 * (1 + erf(v / sqrt(2)))  (exact GELU)
#include <helion/hl.h>

using helion::Tensor;

constexpr float kInvSqrt2 = 0.7071067811865476f;

/// A scalar-or-block helper: any `const` parameter type works, templates too.
template <class B> B half_of(const B& v) { return v * 0.5f; }

/// The exact (erf) GELU of a block, computed in f32.
inline hl::Block gelu(const hl::Block& x) {
  auto v = x.to(hl::f32);
  return half_of(v) * (1.0f + hl::erf(v * kInvSqrt2));
}

HELION_KERNEL Tensor gelu_mul(const Tensor& x, const Tensor& y) {
  HELION_CHECK(x.sizes() == y.sizes(), "gelu_mul: shapes differ");
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    out[tile] = gelu(x[tile]) * gelu(y[tile]);
  }
  return out;
}
