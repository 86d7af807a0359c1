// REQUIRES: frontend
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=NOTE
// What a helper called from device code may not do: each a located error, with a
// note at the call site.
#include <helion/hl.h>

using helion::Tensor;

float global_scale = 2.0f;
float declared_only(float);

inline hl::Block reads_global(const hl::Block& x) {
  // CHECK: diag-helpers.cpp:[[@LINE+1]]:14: error: device code cannot read 'global_scale'
  return x * global_scale;
}

inline hl::Block recurse(const hl::Block& x) {
  // CHECK: diag-helpers.cpp:[[@LINE+1]]:10: error: recursive call of helper 'recurse': helpers are inlined into device code, so they cannot recurse
  return recurse(x) + 1;
}

// CHECK: diag-helpers.cpp:[[@LINE+1]]:29: error: helper parameter 'x' is a non-const reference: device helpers take values or const references
inline void bump(hl::Block& x) { x = x + 1; }

inline hl::Block early(const hl::Block& x) {
  return x;
  // CHECK: diag-helpers.cpp:[[@LINE+1]]:3: error: unreachable code after 'return' in helper 'early'
  x + 1;
}

inline int64_t twice(int64_t n) { return 2 * n; }

HELION_KERNEL Tensor helpers(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    auto row = x[tm, hl::all];
    // NOTE: diag-helpers.cpp:[[@LINE+1]]:14: note: in helper 'reads_global' called here
    auto a = reads_global(row);
    // NOTE: diag-helpers.cpp:[[@LINE+1]]:14: note: in helper 'recurse' called here
    auto b = recurse(row);
    // NOTE: diag-helpers.cpp:[[@LINE+1]]:5: note: in helper 'bump' called here
    bump(row);
    // NOTE: diag-helpers.cpp:[[@LINE+1]]:14: note: in helper 'early' called here
    auto c = early(row);
    // CHECK: diag-helpers.cpp:[[@LINE+1]]:20: error: device code cannot call 'declared_only': its definition is not visible (define helpers in the kernel's translation unit)
    auto d = row * declared_only(1.0f);
    out[tm, hl::all] = a + b + c + d;
  }
  return out;
}

HELION_KERNEL Tensor bounds(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  // CHECK: diag-helpers.cpp:[[@LINE+1]]:27: error: helper 'twice' cannot be called here: call it in a statement inside a device loop
  for (auto tm : hl::tile(twice(m) / 2)) {
    out[tm, hl::all] = x[tm, hl::all];
  }
  return out;
}
