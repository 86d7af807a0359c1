// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// A braced index list (hl::load, hl::store, hl::atomic_add) takes one block of indices
// per dim: hl::all is an error at its location.
#include <helion/hl.h>
using helion::Tensor;

// CHECK: diag-index-list.cpp:[[@LINE+4]]:51: error: 'hl::all' is not an index of a braced index list
HELION_KERNEL Tensor all_in_list(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) hl::store(out, {tm, hl::all}, x[tm, hl::all]);
  return out;
}
