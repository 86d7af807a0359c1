// fp8 matrix product with per-block scales (DeepSeek-V3's fp8 linear, vLLM's w8a8 block
// fp8 matmul):
//   out[M, N] = sum over K blocks kb of (x[:, kb] @ w[:, kb]^T) * scale_x[:, kb] *
//               scale_w[n / 128, kb], in bf16
// x: [M, K] f8e4m3 (or f8e5m2) with scale_x: [M, cdiv(K, 128)] f32, one scale per row and
// 128-wide K block (activations quantized per token and block); w: [N, K] of the same
// dtype (K-major, as a linear layer's weight) with scale_w: [cdiv(N, 128), cdiv(K, 128)]
// f32, one scale per 128 x 128 block. Each K block's product is scaled before it is
// added: the GEMM templates run it with a part accumulator per block (their K-scale
// mainloop), so the column tile and the K block are the scales' 128.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor scaled_mm_block(const Tensor& x, const Tensor& w, const Tensor& scale_x,
                                     const Tensor& scale_w) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  HELION_CHECK(k == k2, "scaled_mm_block: x and w must have the same K");
  HELION_CHECK(scale_x.dim() == 2 && scale_x.size(0) == m && scale_x.size(1) == (k + 127) / 128,
               "scaled_mm_block: scale_x must be [m, cdiv(k, 128)]");
  HELION_CHECK(scale_w.dim() == 2 && scale_w.size(0) == (n + 127) / 128 &&
                   scale_w.size(1) == (k + 127) / 128,
               "scaled_mm_block: scale_w must be [cdiv(n, 128), cdiv(k, 128)]");
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 128}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(128)))
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) *
                      scale_x[tm, tk.id()][hl::all, hl::newaxis] * scale_w[tn.id(), tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}
