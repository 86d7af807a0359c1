// Row-wise argmax and argmin (as torch.argmax/argmin over dim 1): the index of each
// row's largest and smallest value, the first one on ties, the first NaN if any, into
// i64 tensors the caller passes.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL void arg_extremes(const Tensor& x, Tensor& imax, Tensor& imin) {
  auto [m, n] = x.shape<2>();
  HELION_CHECK(n > 0, "arg_extremes: rows must not be empty");
  HELION_CHECK(imax.sizes() == std::vector<int64_t>{m} && imin.sizes() == imax.sizes(),
               "arg_extremes: imax and imin must have one element per row");
  for (auto tm : hl::tile(m)) {
    auto row = x[tm, hl::all];
    imax[tm] = hl::argmax(row, 1);
    imin[tm] = hl::argmin(row, 1);
  }
}
