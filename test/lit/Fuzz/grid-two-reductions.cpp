// REQUIRES: frontend
// Found by test/fuzz (seed 86): two reductions in one body of an hl::grid row (scalar
// results, so no element loop opens a scope) both declared `acc` in one scope and NVRTC
// rejected the CUDA. Each scalar reduction now has a block of its own.
// RUN: rm -rf %t.dir && env HELIONC_NO_CACHE=1 %helionc compile %s --emit cubin --dtype f16 -o %t.dir | FileCheck %s
// CHECK: grid_two_reductions.{{.*}}.cubin: grid_two_reductions_kernel<
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor grid_two_reductions(const Tensor& x, const Tensor& w) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto i : hl::grid(m)) {
    auto v = -hl::where(x[i, hl::all] >= 0, x[i, hl::all], 0.0);
    out[i, hl::all] = hl::sum(v, 0, true) * 0.5f - hl::mean(w[hl::all] + v, 0, /*keepdim=*/true);
  }
  return out;
}
