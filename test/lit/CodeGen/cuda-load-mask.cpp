// REQUIRES: frontend
// The mask of hl::load is an operand of the load: the IR prints it and the CUDA reads it
// (masked-out lanes read 0 and their addresses are not touched), as ref mode does. It
// was once dropped: the GPU read the whole tile while ref mode honoured the mask.
//
// RUN: %helionc compile %s --emit ir | FileCheck %s --check-prefix=IR
// IR: let %mask.2 = le(%cols.1, %rows.0)
// IR: let %v.3 = load_gather %x[gather(%rows.0), gather(%cols.1)] mask %mask.2
//
// RUN: %helionc compile %s --emit cuda | FileCheck %s --check-prefix=CUDA
// CUDA: v3_v[i_t1][i_t0] = {{.*}} && bool(v2_mask[i_t1][i_t0]) ? hd::to_compute(p_x[
//
// A mask that adds a dim broadcasts the load, as in ref mode.
// RUN: %helionc compile %s --kernel row_mask --emit ir --print-after infer-types | FileCheck %s --check-prefix=BCAST
// BCAST: let %v.1 : dtype(x)[tm, tn] = load_gather %x[gather(%r.0), 0] mask lt(%tn.index[newaxis, :], 3)
#include <helion/hl.h>
using helion::Tensor;

HELION_KERNEL Tensor tril(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({x.size(0), x.size(1)})) {
    auto rows = tm.index()[hl::all, hl::newaxis];
    auto cols = tn.index()[hl::newaxis, hl::all];
    auto mask = cols <= rows;
    auto v = hl::load(x, {rows, cols}, mask);
    out[tm, tn] = v;
  }
  return out;
}

HELION_KERNEL Tensor row_mask(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({x.size(0), x.size(1)})) {
    auto r = tm.index()[hl::all, hl::newaxis];
    auto v = hl::load(x, {r, 0}, tn.index()[hl::newaxis, hl::all] < 3);
    out[tm, tn] = v;
  }
  return out;
}
