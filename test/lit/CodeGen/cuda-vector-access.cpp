// REQUIRES: frontend
// RUN: %helionc compile %examples/add.cpp --emit cuda | FileCheck %s
// RUN: echo '{"block_sizes": [4], "reduction_loops": [null], "num_warps": 8}' > %t.rows4.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.rows4.json --emit cuda | FileCheck %s --check-prefix=ROWS
// RUN: echo '{"vector_bytes": 8}' > %t.v8.json
// RUN: %helionc compile %examples/add.cpp --config %t.v8.json --emit cubin --dtype bf16 -o %t.out | FileCheck %s --check-prefix=V8
// RUN: %helionc compile %examples/add.cpp --emit cubin --dtype bf16 -o %t.out | FileCheck %s --check-prefix=V16
// RUN: %helionc compile %examples/add.cpp --emit cubin --dtype f32 -o %t.out | FileCheck %s --check-prefix=V16F32
// Loads and stores along the contiguous (inner) axis move VEC elements at once
// (16 bytes by default), predicated on the vector being in bounds (the host picks
// a VEC that divides the inner extent).

// The inner axis takes VEC elements per thread access, or the widest fewer that
// split it into whole vectors per thread (axis_vec).
// CHECK: constexpr int V_t0 = axis_vec(VEC, S_t0, NT / ST_t0 > 0 ? NT / ST_t0 : 1, {{.*}});
// CHECK: hvec<T_p_x, V_t0> h = {{.*}}tb_t0 + c0_t0 {{.*}}te_t0{{.*}}*reinterpret_cast<const hvec<T_p_x, V_t0>*>(p_x + {{.*}})
// CHECK: hvec<T_p_y, V_t0> h = {{.*}}tb_t0 + c0_t0 {{.*}}te_t0{{.*}}*reinterpret_cast<const hvec<T_p_y, V_t0>*>(p_y + {{.*}})
// The store builds the vector in registers, then writes it whole.
// CHECK: hvec<T_p_out, V_t0> h;
// CHECK: *reinterpret_cast<hvec<T_p_out, V_t0>*>(p_out + {{.*}}) = h;

// Rows: the reduction axis is the inner one; the row tile is scalar and masked.
// ROWS: constexpr int S_a0 = RDIM0;
// ROWS-NEXT: constexpr int ST_a0 = 1;
// ROWS-NEXT: constexpr int V_a0 = axis_vec(VEC, S_a0, NT / ST_a0 > 0 ? NT / ST_a0 : 1, 1LL * 4);
// ROWS: constexpr int S_t0 = 4;
// ROWS-NEXT: constexpr int ST_t0 = ST_a0 * T_a0;
// ROWS-NEXT: constexpr int V_t0 = 1;
// ROWS: hvec<T_p_x, V_a0> h = {{.*}}tb_t0 + c_t0 < te_t0{{.*}}off_a0 + c0_a0 {{.*}}ext_a0{{.*}}*reinterpret_cast<const hvec<T_p_x, V_a0>*>(p_x + {{.*}})

// VEC is the config's vector_bytes over the element size (16 bytes when 0/auto).
// V8: add_kernel<hd::bf16, hd::bf16, hd::bf16, 4, 0> (sm_90a,
// V16: add_kernel<hd::bf16, hd::bf16, hd::bf16, 8, 0> (sm_90a,
// V16F32: add_kernel<float, float, float, 4, 0> (sm_90a,
