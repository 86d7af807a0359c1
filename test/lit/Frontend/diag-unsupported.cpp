// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// Constructs the language does not have are named, never crash.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor unsupported(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    // CHECK: diag-unsupported.cpp:[[@LINE+1]]:5: error: unsupported construct in device code: WhileStmt
    while (false) {
    }
    // CHECK: diag-unsupported.cpp:[[@LINE+1]]:5: error: unsupported construct in device code: ForStmt
    for (int i = 0; i < 2; ++i) {
    }
    // CHECK: diag-unsupported.cpp:[[@LINE+1]]:14: error: unsupported construct in device code: lambda
    auto f = [] { return 1; };
    // CHECK: diag-unsupported.cpp:[[@LINE+1]]:10: error: unsupported construct in device code: structured bindings
    auto [a, b] = x.shape<2>();
    // CHECK: diag-unsupported.cpp:[[@LINE+1]]:26: error: unsupported operator ',' in device code
    auto r = (tm.begin() , 2);
    // CHECK: diag-unsupported.cpp:[[@LINE+1]]:5: error: unsupported construct in device code: a range-based for loop over something other than hl::tile or hl::grid
    for (int v : {1, 2}) {
    }
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
