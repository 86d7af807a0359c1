// fp8 scaled matrix product, torch._scaled_mm with per-row scales (vLLM's fp8 linear):
//   out[M, N] = (x @ w^T) * scale_x[:, None] * scale_w[None, :], in bf16
// x: [M, K] f8e4m3 (or f8e5m2), w: [N, K] of the same dtype (K-major, as a linear
// layer's weight), scale_x: [M] f32, scale_w: [N] f32. hl::dot multiplies the 8-bit
// operands exactly and accumulates in f32; the scales are a pointwise epilogue.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor scaled_mm(const Tensor& x, const Tensor& w, const Tensor& scale_x,
                               const Tensor& scale_w) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  HELION_CHECK(k == k2, "scaled_mm: x and w must have the same K");
  HELION_CHECK(scale_x.dim() == 1 && scale_x.size(0) == m, "scaled_mm: scale_x must be [m]");
  HELION_CHECK(scale_w.dim() == 1 && scale_w.size(0) == n, "scaled_mm: scale_w must be [n]");
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1), acc);
    }
    out[tm, tn] = acc * scale_x[tm][hl::all, hl::newaxis] * scale_w[tn];
  }
  return out;
}

// The same product quantized to fp8 for the next layer, as fp8 inference chains linear
// layers: out = x @ w^T * scale_x[:, None] * scale_w[None, :] * inv_scale_out, stored as
// f8e4m3 (the store rounds; inv_scale_out = 1 / the output's per-tensor scale keeps it
// within the format's range).
HELION_KERNEL Tensor scaled_mm_f8(const Tensor& x, const Tensor& w, const Tensor& scale_x,
                                  const Tensor& scale_w, float inv_scale_out) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  HELION_CHECK(k == k2, "scaled_mm_f8: x and w must have the same K");
  HELION_CHECK(scale_x.dim() == 1 && scale_x.size(0) == m, "scaled_mm_f8: scale_x must be [m]");
  HELION_CHECK(scale_w.dim() == 1 && scale_w.size(0) == n, "scaled_mm_f8: scale_w must be [n]");
  Tensor out = helion::empty({m, n}, hl::f8e4m3, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1), acc);
    }
    out[tm, tn] = acc * scale_x[tm][hl::all, hl::newaxis] * scale_w[tn] * inv_scale_out;
  }
  return out;
}
