// Inclusive prefix sums and products along the rows of a 2-D tensor (torch.cumsum and
// torch.cumprod over dim 1): f16/bf16 rows scan in f32 and store in their dtype.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor cumsum_rows(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m))
    out[tm, hl::all] = hl::cumsum(x[tm, hl::all], 1);
  return out;
}

HELION_KERNEL Tensor cumprod_rows(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m))
    out[tm, hl::all] = hl::cumprod(x[tm, hl::all], 1);
  return out;
}
