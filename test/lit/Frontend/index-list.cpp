// REQUIRES: frontend
// RUN: %helionc compile %s --kernel tiles_in_list --stop-after infer-types | FileCheck %s
// RUN: rm -rf %t.cubin && %helionc compile %s --emit cubin --dtype f32 --arch sm_90a -o %t.cubin
// The braced index list of hl::load, hl::store and hl::atomic_add: a tile stands for its
// indices (`{tm}` is `{tm.index()}`, as in ref mode). A tile there used to crash
// infer-types (a gather index without a value). diag-index-list.cpp: hl::all there.
#include <helion/hl.h>
using helion::Tensor;

// CHECK-LABEL: kernel tiles_in_list
// CHECK:       store_scatter %out[gather(%tm.index)] = {{.*}}load_gather %x[gather(%tm.index), 0]
// CHECK:       atomic_add store_scatter %total[gather(%tm.index)] +=
HELION_KERNEL Tensor tiles_in_list(const Tensor& x, Tensor& total) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m)) {
    hl::store(out, {tm}, hl::load(x, {tm, 0}) * 2.0f);
    hl::atomic_add(total, {tm}, hl::sum(x[tm, hl::all], 1));
  }
  return out;
}
