// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
#include <helion/hl.h>

using helion::Tensor;

// CHECK: diag-no-loop.cpp:[[@LINE+1]]:22: error: kernel 'host_only' has no device loop: expected a top-level 'for' over hl::tile(...) or hl::grid(...)
HELION_KERNEL Tensor host_only(const Tensor& x) {
  return helion::empty_like(x);
}
