// REQUIRES: frontend
// RUN: %helionc compile %s --emit cuda | FileCheck %s
// RUN: rm -rf %t.dir && env HELIONC_NO_CACHE=1 %helionc compile %s --emit cubin -o %t.dir | FileCheck %s --check-prefix=CUBIN
// Found by test/fuzz on the GPU (298 of 982 cases, seeds 0, 2, 5, ...): under pid_type
// flat, the second top-level loop took its programs from `blockIdx.x - 0 + total_0`
// (a sum spliced in unparenthesized) instead of `blockIdx.x - total_0`: the first
// total_0 tiles of every later loop never ran and its output kept zeros or poison.
#include <helion/hl.h>

using helion::Tensor;

// CUBIN: three.{{.*}}.cubin: three_kernel<
// CHECK: for (int64 pid = (int64)blockIdx.x - 0; pid >= 0 && pid < total_0; pid += total_0) {
// CHECK: for (int64 pid = (int64)blockIdx.x - (total_0); pid >= 0 && pid < total_1; pid += total_1) {
// CHECK: for (int64 pid = (int64)blockIdx.x - (total_0 + total_1); pid >= 0 && pid < total_2; pid += total_2) {
HELION_KERNEL std::tuple<Tensor, Tensor, Tensor> three(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor a = helion::empty({n}, x.dtype(), x.device());
  Tensor b = helion::empty({m}, x.dtype(), x.device());
  Tensor c = helion::empty({m, n}, x.dtype(), x.device());
  for (auto tn : hl::tile(n))
    a[tn] = hl::sum(x[hl::all, tn], 0);
  for (auto tm : hl::tile(m))
    b[tm] = hl::sum(x[tm, hl::all], 1);
  for (auto [tm, tn] : hl::tile({m, n}))
    c[tm, tn] = x[tm, tn] * 2;
  return {a, b, c};
}
