// REQUIRES: frontend
// `hl::tile(t.sizes())` nested in another tile loop ranges over numel(t), as at the top
// level. It once emitted `end_t1 = size_out_-1`, which NVRTC rejected with no location.
//
// RUN: %helionc compile %s --emit cuda | FileCheck %s
// CHECK: int64 numel_p_out
// CHECK: const int64 end_t1 = numel_p_out;
// CHECK-NOT: size_p_out_-1
// RUN: rm -rf %t && env HELIONC_NO_CACHE=1 %helionc compile %s --emit cubin -o %t | FileCheck %s --check-prefix=CUBIN
// CUBIN: nested_kernel<float, float, {{[0-9]+}}, 0> (sm_90a
#include <helion/hl.h>
using helion::Tensor;

HELION_KERNEL Tensor nested(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(x.size(0))) {
    for (auto t : hl::tile(out.sizes())) {
      out[t] = x[t] * 2.0f;
    }
  }
  return out;
}
