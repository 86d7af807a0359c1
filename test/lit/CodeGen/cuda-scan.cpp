// REQUIRES: frontend
// RUN: %helionc compile %examples/cumsum.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/cumsum.cpp --kernel cumsum_rows --emit cuda | FileCheck %s --check-prefix=SUM
// RUN: %helionc compile %examples/cumsum.cpp --kernel cumprod_rows --emit cuda | FileCheck %s --check-prefix=PROD
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --emit cuda | FileCheck %s --check-prefix=NOSCAN
// RUN: echo '{"block_sizes": [1], "reduction_loops": [512]}' > %t.looped.json
// RUN: %helionc compile %examples/cumsum.cpp --kernel cumsum_rows --config %t.looped.json --emit cuda | FileCheck %s --check-prefix=LOOPED
// RUN: rm -rf %t && %helionc compile %examples/cumsum.cpp --emit cubin --dtype bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// Scans along a row: each thread scans its V consecutive elements of a round,
// axis_scan_excl combines the threads before it, `carry` the earlier rounds (and, over a
// looped axis, the earlier chunks).
// Only kernels with a scan carry the scan helpers.

// IR: store %out[%tm, :] = cumsum(load %x[%tm, :], dim=1)
// IR: store %out[%tm, :] = cumprod(load %x[%tm, :], dim=1)

// SUM: #include "helion/generic_scan.cuh"
// SUM: hd::compute_t<T_p_x> carry = OpSum::identity<hd::compute_t<T_p_x>>();
// SUM-NEXT: #pragma unroll
// SUM-NEXT: for (int r_a0 = 0; r_a0 < E_a0 / V_a0; ++r_a0) {
// SUM: if (X_a0 || off_a0 + c_a0 < ext_a0) run = OpSum()(run, hd::compute_t<T_p_x>(hd::to_compute(
// SUM-NEXT: part[u_a0] = run;
// SUM: const hd::compute_t<T_p_x> before = OpSum()(carry, axis_scan_excl<T_a0, ST_a0>(run, OpSum(), (hd::compute_t<T_p_x>*)smem_raw[red_phase++ & 1], total));
// SUM: = OpSum()(before, part[u_a0]);
// SUM: carry = OpSum()(carry, total);

// PROD: OpProd::identity<hd::compute_t<T_p_x>>()
// PROD: axis_scan_excl<T_a0, ST_a0>(run, OpProd(),

// NOSCAN-NOT: generic_scan.cuh
// NOSCAN-NOT: axis_scan_excl
// NOSCAN-NOT: OpProd

// Looped: the scan is computed in the store's chunk loop, from the carry of the chunk
// before (reset at the first chunk).
// LOOPED: hd::compute_t<T_p_x> v[[V:[0-9]+]]__t1_carry[E_t0]; // the scan's prefix from the chunks before
// LOOPED: for (int64 off_a0 = 0; off_a0 < ext_a0; off_a0 += S_a0) {
// LOOPED: hd::compute_t<T_p_x> carry = off_a0 == 0 ? OpSum::identity<hd::compute_t<T_p_x>>() : v[[V]]__t1_carry[i_t0];
// LOOPED: v[[V]]__t1_carry[i_t0] = carry;
// LOOPED: h.v[v] = hd::from_compute<T_p_out>(v[[V]]__t1[i_a0][i_t0]);

// CUBIN: cumsum.cumsum_rows.bf16.n4096.cubin: cumsum_rows_kernel<4096, hd::bf16, hd::bf16, 8, 0> (sm_80
// CUBIN: cumsum.cumprod_rows.bf16.n4096.cubin: cumprod_rows_kernel<4096, hd::bf16, hd::bf16, 8, 0> (sm_80
