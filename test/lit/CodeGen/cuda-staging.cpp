// REQUIRES: frontend
// Staged loads: indexing block_ptr + num_stages >= 2 on a persistent grid copy the
// next tiles' vectors into shared memory with cp.async (EmitStaging.cpp).
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, "pid_type": "persistent_interleaved", "num_stages": 2, "indexing": "block_ptr"}' > %t.st.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.st.json --emit cuda | FileCheck %s
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, "pid_type": "persistent_blocked", "num_stages": 3, "indexing": "block_ptr"}' > %t.blk.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.blk.json --emit cuda | FileCheck %s --check-prefix=BLK
// The spec offers block_ptr only on loads it stages: cross_entropy's row logits[tn, :]
// (site 1), not labels[tn] (its tile is never the program's innermost axis next to a
// whole row), the gather or the store; eviction hints not on the gather (load 2).
// RUN: %helionc spec %examples/cross_entropy.cpp | FileCheck %s --check-prefix=SPEC
// SPEC: indexing {{.*}}(4 entries; stageable: sites 1); default pointer
// SPEC: load_eviction_policies {{.*}}(3 entries; hintable: loads 0, 1); default ""
// Not staged: pointer indexing, one stage, or a non-persistent grid.
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, "pid_type": "persistent_interleaved", "num_stages": 2, "indexing": "pointer"}' > %t.ptr.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.ptr.json --emit cuda | FileCheck %s --check-prefix=NONE
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, "num_stages": 2, "indexing": "block_ptr"}' > %t.flat.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.flat.json --emit cuda | FileCheck %s --check-prefix=NONE
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.st.json --emit host | FileCheck %s --check-prefix=HOST

// CHECK: using stage_t0 = hvec<T_p_x, V_a0>;
// CHECK: constexpr int NSLOT0 = (E_a0 / V_a0) * E_t0;
// CHECK: constexpr int STG = STAGED ? hmax(1, hmin(2, STAGE_ROOM / STAGE_BYTES)) : 1;
// CHECK: __shared__ stage_t0 stage0[STAGED ? STG : 1][STAGED ? NSLOT0 : 1][STAGED ? NT : 1];
// CHECK: const int64 pid_first = blockIdx.x, pid_step = gridDim.x, pid_end = total_0;
// The prologue fills STG - 1 slots, one commit group each.
// CHECK: for (int stage_s = 0; stage_s < STG - 1; ++stage_s) {
// CHECK: hd::stage_copy<int(sizeof(stage_t0))>(&stage0[stage_s][(i_t0) * (E_a0 / V_a0) + g_a0][threadIdx.x], p_x + (tb_t0 + c_t0) * stride_p_x_0
// CHECK: hd::cp_async_commit();
// Each iteration issues the tile STG - 1 ahead, then waits for its own.
// CHECK: for (int64 pid = pid_first; pid < pid_end; pid += pid_step, ++stage_it) {
// CHECK: const int64 pid_next = pid + (STG - 1) * pid_step;
// CHECK: &stage0[(stage_it + STG - 1) % STG]
// CHECK: hd::cp_async_commit();
// CHECK-NEXT: hd::cp_async_wait<STG - 1>();
// CHECK: const int stage_slot = stage_it % STG;
// CHECK: T_p_x v0_values[E_a0][E_t0];
// CHECK: if constexpr (STAGED) h = stage0[stage_slot][(i_t0) * (E_a0 / V_a0) + g_a0][threadIdx.x];
// CHECK-NEXT: else h = {{.*}}*reinterpret_cast<const hvec<T_p_x, V_a0>*>(p_x +

// rms_norm: the weight is tile-invariant (loaded once, before the loop), only x is staged.
// BLK: T_p_weight v4__t2[E_a0];
// BLK: using stage_t0 = hvec<T_p_x, V_a0>;
// BLK-NOT: using stage_t1
// BLK: hmin(3, STAGE_ROOM / STAGE_BYTES)
// BLK: const int64 pid_end = hd::minimum<int64>(pid_first + per_cta, total_0);

// NONE-NOT: stage_copy
// NONE-NOT: STAGED

// The launcher proves bounds checks away: EXACT bit 0 for the row (RDIM0 == n),
// bit 1 for the row tile (m % 1 == 0).
// HOST: p_x.size(1) == helion::rt::reductionExtent(p_x.size(1), 256) ? 1 : 0
// HOST: (p_m - int64_t(0)) % 1 == 0 ? 2 : 0
