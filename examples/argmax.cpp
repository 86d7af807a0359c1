// Row-wise argmax and argmin (as torch.argmax/argmin over dim 1): the index (i64) of
// each row's largest and smallest value, the first one on ties, the first NaN if any.
#include <helion/hl.h>

#include <tuple>

using helion::Tensor;

HELION_KERNEL std::tuple<Tensor, Tensor> arg_extremes(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  HELION_CHECK(n > 0, "arg_extremes: rows must not be empty");
  Tensor imax = helion::empty({m}, hl::i64, x.device());
  Tensor imin = helion::empty({m}, hl::i64, x.device());
  for (auto tm : hl::tile(m)) {
    auto row = x[tm, hl::all];
    imax[tm] = hl::argmax(row, 1);
    imin[tm] = hl::argmin(row, 1);
  }
  return {imax, imin};
}
