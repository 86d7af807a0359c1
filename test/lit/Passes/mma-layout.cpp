// REQUIRES: frontend
// RUN: %helionc compile %examples/dot_generic.cpp --stop-after mma-layout | FileCheck %s
// RUN: echo '{"num_stages": 1}' > %t.s1.json
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.s1.json --stop-after mma-layout | FileCheck %s --check-prefix=S1
// RUN: echo '{"block_sizes": [16, 8, 8, 8], "num_warps": 2}' > %t.fb.json
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.fb.json --stop-after mma-layout | FileCheck %s --check-prefix=FALLBACK
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --stop-after mma-layout | FileCheck %s --check-prefix=KERNELS
// RUN: %helionc compile %examples/matmul.cpp --stop-after mma-layout | FileCheck %s --check-prefix=MATMUL
// RUN: %helionc spec %examples/dot_generic.cpp | FileCheck %s --check-prefix=SPEC
// mma-layout: the general dots' layout (ir::planMma) written into the IR: tile roles,
// each dot's operands, the pipelined dot and its stages (num_stages).

// mlp_relu: tm is the rows of both dots, th and tn their columns; the first dot's
// loads are copied by all threads (their lets are not emitted) and it is pipelined
// over tk with the default 3 stages; the second dot's A (the activation) is in
// registers, its B copied early (at the top of each th iteration: w2[th, tn] uses
// only tiles bound there).
// CHECK:      for %tm in tile(0, %m) block bs0 mma rows, %tn in tile(0, %n) block bs1 mma cols
// CHECK:      for %th in tile(0, %h) block bs2 mma cols unroll 0 = range_unroll_factors[0] {
// CHECK:      for %tk in tile(0, %k) block bs3 unroll 0 = range_unroll_factors[1] {
// CHECK-NEXT:   let copied-by-dot %_t0.3 : dtype(x)[tm, tk] = load %x[%tm, %tk]
// CHECK-NEXT:   let copied-by-dot %_t1.4 : dtype(w1)[tk, th] = load %w1[%tk, %th]
// CHECK-NEXT:   let %_t2.5 : f32[tm, th] = dot(%_t0.3, %_t1.4, %hidden.1) mma(a copied, b copied, stages 3)
// CHECK:      let copied-by-dot %_t4.7 : dtype(w2)[th, tn] = load %w2[%th, %tn]
// CHECK-NEXT: let %_t5.8 : f32[tm, tn] = dot(%act.2, %_t4.7, %acc.0) mma(a registers, b copied, early)

// num_stages 1: the same layout, no dot pipelined: the first dot copies early too (at
// the top of each tk iteration).
// S1:     dot(%_t0.3, %_t1.4, %hidden.1) mma(a copied, b copied, early)
// S1-NOT: stages

// 16 rows on 2 warps is not 16 rows per warp: no mma layout (the shared-memory
// fallback), nothing marked.
// FALLBACK-NOT: mma rows
// FALLBACK-NOT: copied-by-dot
// FALLBACK:     dot(%_t0.3, %_t1.4, %hidden.1){{$}}
// FALLBACK-NOT: mma(

// A B through .transpose is copied; a computed B is written by its owners; a computed
// A the templates do not take (a product of two loads) is in registers, one they take
// (an A prologue, dot_colscale_a) is left alone; when A and B are both computed, both
// are written by their owners (a register A would put two column tiles on B).
// KERNELS-LABEL: kernel dot_chain_t
// KERNELS: dot(%_t0.2, %_t1.3.transpose(0, 1), %s.1) mma(a copied, b copied, stages 3)
// KERNELS: dot(cast<dtype(%q)>(%s.1), %_t3.5, %acc.0) mma(a registers, b copied, early)
// KERNELS-LABEL: kernel dot_relu_b
// KERNELS: mma(a copied, b owners)
// KERNELS-LABEL: kernel dot_colscale_a
// KERNELS-NOT: mma(
// KERNELS-LABEL: kernel dot_product_a
// KERNELS: mma(a registers, b copied, stages 3)
// KERNELS-LABEL: kernel dot_both
// KERNELS: mma(a owners, b owners)

// A matmul runs its template: the pass leaves it alone.
// MATMUL-NOT: mma(
// MATMUL-NOT: mma rows

// The spec offers num_stages for the pipeline.
// SPEC: num_stages tiles of the pipelined general dot's loop in flight (1: none): 1 | 2 | 3 | 4; default 3
