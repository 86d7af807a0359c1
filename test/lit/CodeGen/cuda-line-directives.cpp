// REQUIRES: frontend
// RUN: %helionc compile %s --emit cuda | FileCheck %s
// RUN: %helionc compile %s --emit cuda > %t.1.cu
// RUN: %helionc compile %s --emit cuda > %t.2.cu
// RUN: diff %t.1.cu %t.2.cu
// RUN: %helionc compile %s -o %t.a
// RUN: %helionc compile %s -o %t.b
// RUN: diff -r %t.a %t.b
// Each statement's code starts with a #line directive naming its line in this
// file, so NVRTC errors and profilers point at the kernel source; and the output is
// the same byte for byte from one run to the next (cache keys hash it).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor norm_rows(const Tensor& x, double eps) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: #line [[@LINE+1]] "{{.*}}cuda-line-directives.cpp"
    auto row = x[tm, hl::all].to(hl::f32);
    // CHECK: #line [[@LINE+1]] "{{.*}}cuda-line-directives.cpp"
    auto ss = hl::sum(row * row, 1, /*keepdim=*/true);
    // CHECK: #line [[@LINE+1]] "{{.*}}cuda-line-directives.cpp"
    out[tm, hl::all] = row * hl::rsqrt(ss + eps);
  }
  return out;
}
