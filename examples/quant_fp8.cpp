// fp8 quantization as vLLM's per-token kernels do it, and back:
//   quant_fp8:   each row of x scaled so that its largest magnitude lands on 448 (the
//                largest f8e4m3 value), stored as f8e4m3 (torch.float8_e4m3fn), with
//                the row's dequantization scale amax / 448 in f32
//   dequant_fp8: out[i, j] = q[i, j] * scale[i], in out's dtype
// A block of 8-bit floats holds values only: it is cast (.to) before arithmetic.
#include <helion/hl.h>

#include <utility>

using helion::Tensor;

HELION_KERNEL std::pair<Tensor, Tensor> quant_fp8(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor q = helion::empty({m, n}, hl::f8e4m3, x.device());
  Tensor scale = helion::empty({m}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto row = x[tm, hl::all].to(hl::f32);
    auto amax = hl::maximum(hl::amax(hl::abs(row), 1), 1e-12f);
    auto inv = 448.0f / amax;  // one division per row; the row is multiplied by it
    q[tm, hl::all] = row * inv[hl::all, hl::newaxis];  // the store rounds to f8e4m3
    scale[tm] = amax / 448.0f;
  }
  return {q, scale};
}

HELION_KERNEL void dequant_fp8(const Tensor& q, const Tensor& scale, Tensor& out) {
  auto [m, n] = q.shape<2>();
  HELION_CHECK(out.sizes() == q.sizes(), "dequant_fp8: out must have q's shape");
  for (auto [tm, tn] : hl::tile({m, n})) {
    out[tm, tn] = q[tm, tn].to(hl::f32) * scale[tm][hl::all, hl::newaxis];
  }
}
