// REQUIRES: frontend
// RUN: %helionc compile %examples/softmax.cpp --stop-after thread-layout | FileCheck %s
// RUN: echo '{"block_sizes": [64], "reduction_loops": [16]}' > %t.l16.json
// RUN: %helionc compile %examples/sum.cpp --config %t.l16.json --stop-after thread-layout | FileCheck %s --check-prefix=LOOPED
// RUN: %helionc compile %examples/sum.cpp --config %t.l16.json --emit cuda | FileCheck %s --check-prefix=LOOPED-CUDA
// RUN: %helionc compile %examples/dot_generic.cpp --stop-after thread-layout | FileCheck %s --check-prefix=DOT
// RUN: %helionc compile %s --stop-after thread-layout | FileCheck %s --check-prefix=SHIFT
// RUN: %helionc compile %s --emit cuda | FileCheck %s --check-prefix=SHIFT-CUDA
// RUN: %helionc compile %examples/matmul.cpp --stop-after thread-layout | FileCheck %s --check-prefix=MATMUL
// thread-layout decides the CTA's layout axes of a kernel the generic emitter prints:
// their order (innermost first), which are vectorized (inner) and which earlier axes
// each goes past (after: some value spans both). The emitter prints it as it is.
#include <helion/hl.h>

using helion::Tensor;

// A tile that does not begin at 0 is not vectorized (vectors start at multiples of
// VEC), though its dim is the contiguous one.
HELION_KERNEL Tensor shift_right(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    for (auto tn : hl::tile(1, n)) {
      out[tm, tn] = x[tm, tn] * 2.0f;
    }
  }
  return out;
}

// A row reduction: the persistent reduction axis (the contiguous dim, the largest
// candidate) is inner; the rows of the tile go past it.
// CHECK:      // -----// IR after thread-layout //----- //
// CHECK-NEXT: kernel softmax(
// CHECK-NEXT:   block_sizes: bs0(tm, hint %m) = {{[0-9]+}} (block_sizes[0])
// CHECK-NEXT:   axes: a0(%x.size(1)) persistent
// CHECK-NEXT:   thread_layout: a0 inner | t0(tm) after [a0]{{$}}
// Two sibling loops over n: no value spans tn and tn, so both are inner and share the
// lowest threads; tm goes past both.
// CHECK:      kernel softmax_two_pass(
// CHECK-NEXT:   block_sizes:
// CHECK-NEXT:   thread_layout: t1(tn) inner | t2(tn) inner | t0(tm) after [t1, t2]{{$}}

// Looped in chunks of 16, the reduction axis is smaller than the 64-row tile, which
// wins the inner place; the chunk goes past the rows.
// LOOPED:      axes: a0(%x.size(1)) looped 16
// LOOPED-NEXT: thread_layout: t0(tm) inner | a0 after [t0]{{$}}
// LOOPED-CUDA:      constexpr int S_t0 = 64;
// LOOPED-CUDA-NEXT: constexpr int ST_t0 = 1;
// LOOPED-CUDA-NEXT: constexpr int V_t0 = axis_vec(VEC, S_t0, NT / ST_t0 > 0 ? NT / ST_t0 : 1, {{.*}});
// LOOPED-CUDA:      // axis a0: reduction axis a0 (looped)
// LOOPED-CUDA-NEXT: constexpr int S_a0 = 16;
// LOOPED-CUDA-NEXT: constexpr int ST_a0 = ST_t0 * T_t0;
// LOOPED-CUDA-NEXT: constexpr int V_a0 = 1;

// General dots under the mma layout: the column tiles, then the row tile, take the
// lowest thread bits, nothing is vectorized; tk spans only copied operands.
// DOT:      kernel mlp_relu(
// DOT:      thread_layout: t1(tn) mma cols | t2(th) mma cols | t0(tm) mma rows after [t1, t2] | t3(tk){{$}}

// SHIFT:      thread_layout: t1(tn) | t0(tm) after [t1]{{$}}
// SHIFT-CUDA: constexpr int V_t1 = 1;

// A matmul runs its template, which lays out its own threads: no layout.
// MATMUL:     // -----// IR after thread-layout //----- //
// MATMUL-NOT: thread_layout
