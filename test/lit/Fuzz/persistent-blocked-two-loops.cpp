// REQUIRES: frontend
// RUN: echo '{"pid_type": "persistent_blocked"}' > %t.json
// RUN: rm -rf %t.dir && %helionc compile %s --config %t.json --emit cubin -o %t.dir | FileCheck %s
// RUN: %helionc compile %s --config %t.json --emit cuda | FileCheck %s --check-prefix=CUDA
// Found by test/fuzz (seed 0): two grid loops in one kernel under persistent_blocked
// declared `per_cta` twice in the kernel body, and NVRTC rejected the CUDA.
#include <helion/hl.h>

using helion::Tensor;

// CHECK: two.{{.*}}.cubin: two_kernel<
// CUDA: const int64 per_cta_0 = hd::cdiv<int64>(total_0, (int64)gridDim.x);
// CUDA: const int64 per_cta_1 = hd::cdiv<int64>(total_1, (int64)gridDim.x);
HELION_KERNEL std::tuple<Tensor, Tensor> two(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor a = helion::empty({m, n}, x.dtype(), x.device());
  Tensor b = helion::empty({m}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n}))
    a[tm, tn] = x[tm, tn];
  for (auto tm : hl::tile(m))
    b[tm] = hl::sum(x[tm, hl::all], 1);
  return {a, b};
}
