// REQUIRES: frontend
// RUN: %helionc compile %examples/sum.cpp --emit cuda | FileCheck %s --check-prefix=PERS
// RUN: echo '{"block_sizes": [2], "reduction_loops": [1024]}' > %t.looped.json
// RUN: %helionc compile %examples/sum.cpp --config %t.looped.json --emit cuda | FileCheck %s --check-prefix=LOOP
// RUN: %helionc compile %examples/sum.cpp --emit cubin --size-hint 1000 -o %t.out | FileCheck %s --check-prefix=HINT
// RUN: %helionc compile %examples/sum.cpp --config %t.looped.json --emit cubin --size-hint 1000 -o %t.out | FileCheck %s --check-prefix=HINT-LOOP
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8}' > %t.row1.json
// RUN: %helionc compile %examples/sum.cpp --config %t.row1.json --emit cubin --size-hint 10240 -o %t.out | FileCheck %s --check-prefix=HINT10K
// RUN: %helionc compile %examples/layer_norm.cpp --config %t.looped.json --emit cuda | FileCheck %s --check-prefix=LN
// Persistent reductions (reduction_loops null: the whole row in registers, its
// padded extent RDIM0 a template parameter) vs looped ones (chunks of N, partial
// results carried across chunks, one cross-thread combine at the end).

// PERS: template <int RDIM0, class T_p_x, class T_p_out, int VEC, int EXACT>
// PERS: // axis a0: reduction axis a0
// PERS-NEXT: constexpr int S_a0 = RDIM0;
// PERS: const int64 off_a0 = 0;
// PERS-NOT: for (int64 off_a0
// PERS: hd::compute_t<T_p_x> acc = OpSum::identity<hd::compute_t<T_p_x>>();
// Elements past the row's extent are masked out of the sum.
// PERS: if (X_a0 || off_a0 + c_a0 < ext_a0) acc = OpSum()(acc,
// PERS: = axis_reduce<T_a0, ST_a0>(acc, OpSum(), {{.*}}smem_raw[red_phase++ & 1]);

// LOOP: template <class T_p_x, class T_p_out, int VEC, int EXACT>
// LOOP-NOT: RDIM0
// LOOP: // axis a0: reduction axis a0 (looped)
// LOOP-NEXT: constexpr int S_a0 = 1024;
// LOOP: constexpr int S_t0 = 2;
// LOOP: acc_[[ACC:[a-z0-9_]+]][i_t0] = OpSum::identity<hd::compute_t<T_p_x>>();
// LOOP: for (int64 off_a0 = 0; off_a0 < ext_a0; off_a0 += S_a0) {
// LOOP: hd::compute_t<T_p_x> acc = acc_[[ACC]][i_t0];
// LOOP: if (X_a0 || off_a0 + c_a0 < ext_a0) acc = OpSum()(acc,
// LOOP: acc_[[ACC]][i_t0] = acc;
// LOOP: = axis_reduce<T_a0, ST_a0>(acc, OpSum(),

// --emit cubin instantiates RDIM0 as the launcher would for an extent of --size-hint
// (helion::rt::reductionExtent): 1000 -> 1024, 10240 on 256 threads -> 10240.
// HINT: sum_rows_kernel<1024, float, float, 4, 0> (sm_90a,
// HINT-LOOP: sum_rows_kernel<float, float, 4, 0> (sm_90a,
// HINT10K: sum_rows_kernel<10240, float, float, 4, 0> (sm_90a,

// layer_norm: two looped reductions (mean, then variance), each with its own loop.
// LN: for (int64 off_a0 = 0; off_a0 < ext_a0; off_a0 += S_a0) {
// LN: OpSum()
// LN: for (int64 off_a0 = 0; off_a0 < ext_a0; off_a0 += S_a0) {
// LN: OpSum()
