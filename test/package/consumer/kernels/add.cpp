// out = x + y, compiled with add.json.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor add(const Tensor& x, const Tensor& y) {
  HELION_CHECK(x.sizes() == y.sizes(), "add: shapes differ");
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    out[tile] = x[tile] + y[tile];
  }
  return out;
}
