// Clang errors and warnings whose notes point into hl.h and the standard headers
// (pch.test: the same bytes with and without the precompiled hl.h).
#include <helion/hl.h>
#include <vector>

using helion::Tensor;

#warning a warning in the kernel file

void host_errors(const Tensor& x) {
  Tensor a = helion::empty_like(x, 3);     // no match: notes in hl/tensor.h
  std::vector<int> v;
  v.push_back("not an int");               // no match: notes in the standard headers
  auto t = hl::tile(x);                    // no match among hl::tile's overloads
}

HELION_KERNEL Tensor kernel(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    out[tile] = x[tile] + undeclared[tile];
  }
  return out;
}
