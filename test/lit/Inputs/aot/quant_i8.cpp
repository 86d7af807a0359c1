// bf16 in, f32 scales, int8 out: a kernel whose tensors have three dtypes
// (test/lit/Driver/cubin-dtypes.test).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor quant_i8(const Tensor& x, const Tensor& scale) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m, n}, hl::i8, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    out[tm, tn] = (x[tm, tn] / scale[tm][hl::all, hl::newaxis]).to(hl::i8);
  }
  return out;
}
