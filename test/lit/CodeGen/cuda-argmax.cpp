// REQUIRES: frontend
// RUN: %helionc compile %examples/argmax.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/argmax.cpp --emit cuda | FileCheck %s --check-prefix=PERS
// RUN: echo '{"block_sizes": [1], "reduction_loops": [512]}' > %t.looped.json
// RUN: %helionc compile %examples/argmax.cpp --config %t.looped.json --emit cuda | FileCheck %s --check-prefix=LOOP
// RUN: rm -rf %t && %helionc compile %examples/argmax.cpp --config %t.looped.json --emit cubin --dtype bf16,imax=i64,imin=i64 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// argmax/argmin: each thread keeps its best value and first index (across the chunks
// of a looped reduction), then the threads agree on the best value (OpMax/OpMin) and
// on the smallest index holding it (OpMin over int64).

// IR: store %imax[%tm] = argmax(%row.0, dim=1)
// IR: store %imin[%tm] = argmin(%row.0, dim=1)

// PERS:      hd::compute_t<T_p_x> arg_best = hd::arg_init<true, hd::compute_t<T_p_x>>();
// PERS-NEXT: int64 arg_bi = -1;
// PERS:      if (hd::arg_better<true>(arg_v, arg_best, arg_bi)) { arg_best = arg_v; arg_bi = (off_a0 + c_a0); }
// PERS:      const hd::compute_t<T_p_x> arg_m = axis_reduce<T_a0, ST_a0>(arg_best, OpMax(),
// PERS-NEXT: const int64 arg_cand = arg_bi >= 0 && (arg_best == arg_m || (arg_m != arg_m && arg_best != arg_best)) ? arg_bi : int64(0x7fffffffffffffffLL);
// PERS-NEXT: = axis_reduce<T_a0, ST_a0>(arg_cand, OpMin(), (int64*)smem_raw[red_phase++ & 1]);
// PERS:      hd::arg_init<false, hd::compute_t<T_p_x>>();
// PERS:      axis_reduce<T_a0, ST_a0>(arg_best, OpMin(),

// LOOP:      accv_[[V:[a-z0-9_]+]][i_t0] = hd::arg_init<true, hd::compute_t<T_p_x>>();
// LOOP-NEXT: acci_[[V]][i_t0] = -1;
// LOOP:      for (int64 off_a0 = 0; off_a0 < ext_a0; off_a0 += S_a0) {
// LOOP:      hd::compute_t<T_p_x> arg_best = accv_[[V]][i_t0];
// LOOP:      arg_bi = (off_a0 + c_a0);
// LOOP:      accv_[[V]][i_t0] = arg_best;
// LOOP-NEXT: acci_[[V]][i_t0] = arg_bi;
// LOOP:      int64 arg_bi = acci_[[V]][i_t0];
// LOOP-NEXT: axis_reduce<T_a0, ST_a0>(arg_best, OpMax(),

// CUBIN: argmax.arg_extremes.bf16.imax-i64.imin-i64{{.*}}.cubin: arg_extremes_kernel<hd::bf16, hd::int64, hd::int64, 8, 0> (sm_80
