// REQUIRES: frontend
// RUN: echo '{"block_sizes": [32]}' > %t.json
// RUN: %helionc compile %s --config %t.json --stop-after apply-config | FileCheck %s
// RUN: %helionc compile %s --stop-after apply-config | FileCheck %s --check-prefix=DEFAULT
// RUN: %helionc compile %s --config %t.json --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: echo '{"reduction_loops": [1024]}' > %t.rl.json
// RUN: %helionc compile %examples/sum.cpp --config %t.rl.json --stop-after apply-config | FileCheck %s --check-prefix=LOOPED
// RUN: %helionc compile %examples/sum.cpp --config %t.rl.json --emit cuda | FileCheck %s --check-prefix=LOOPED-CUDA
// RUN: %helionc compile %examples/sum.cpp --stop-after apply-config | FileCheck %s --check-prefix=PERSISTENT
// apply-config resolves every block size once, into the IR: a size the source fixes
// keeps its value and has no config entry; the tunable ones take block_sizes in
// declaration order. Each reduction axis is looped in chunks of its reduction_loops
// entry, or persistent (null).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor fixed_then_tuned(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m, hl::block_size(8))) {
    for (auto tn : hl::tile(n)) {
      out[tm, tn] = x[tm, tn] + 1.0f;
    }
  }
  return out;
}

// CHECK:      // -----// IR after apply-config //----- //
// CHECK-NEXT: kernel fixed_then_tuned(
// CHECK-NEXT:   block_sizes: bs0(tm, fixed 8{{.*}}) = 8 bs1(tn, hint {{.*}}) = 32 (block_sizes[0])
// CHECK-NOT:  // -----// IR after

// DEFAULT: block_sizes: bs0(tm, fixed 8{{.*}}) = 8 bs1(tn, hint {{.*}}) = {{[0-9]+}} (block_sizes[0])

// The emitter reads the chosen sizes.
// CUDA: constexpr int S_t1 = 32;
// CUDA: const int64 nt_t0 = hd::cdiv<int64>(end_t0 - begin_t0, 8);

// LOOPED:      // -----// IR after apply-config //----- //
// LOOPED-NEXT: kernel sum_rows(
// LOOPED-NEXT:   block_sizes: bs0(tm, hint %m) = {{[0-9]+}} (block_sizes[0])
// LOOPED-NEXT:   axes: a0(%x.size(1)) looped 1024{{$}}
// LOOPED-CUDA: // axis a0: reduction axis a0 (looped)
// LOOPED-CUDA: constexpr int S_a0 = 1024;

// PERSISTENT: axes: a0(%x.size(1)) persistent{{$}}
