// REQUIRES: frontend
// RUN: rm -rf %t.dir && %helionc compile %s --emit cubin --dtype f16 -o %t.dir | FileCheck %s
// Found by test/fuzz (seed 23), fixed: a loop over hl::tile(o0.sizes()) reading
// x1[t] and a second grid loop reading x1[i, tn] give CUDA that uses stride_x1_0 and
// stride_x1_1 without declaring them: NVRTC "identifier "stride_x1_0" is undefined".
#include <helion/hl.h>

using helion::Tensor;

// CHECK: flat_then_strided.{{.*}}.cubin: flat_then_strided_kernel<
HELION_KERNEL std::tuple<Tensor, Tensor> flat_then_strided(const Tensor& x0, const Tensor& x1) {
  auto [m, n] = x0.shape<2>();
  Tensor o0 = helion::empty({m, n}, hl::f16, x0.device());
  Tensor o1 = helion::empty({m, n}, hl::f16, x0.device());
  for (auto t1 : hl::tile(o0.sizes()))
    o0[t1] = x1[t1];
  for (auto i : hl::grid(m))
    for (auto tn : hl::tile(n))
      o1[i, tn] = x1[i, tn];
  return {o0, o1};
}
