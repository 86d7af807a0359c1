// REQUIRES: frontend
// RUN: %helionc compile %examples/jagged_sum.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/jagged_sum.cpp --emit cuda | FileCheck %s --check-prefix=DEF
// RUN: echo '{"block_sizes": [64, 16], "range_unroll_factors": [2]}' > %t.json
// RUN: %helionc compile %examples/jagged_sum.cpp --config %t.json --emit cuda | FileCheck %s --check-prefix=CFG
// RUN: rm -rf %t && %helionc compile %examples/jagged_sum.cpp --emit cubin --dtype bf16,offsets=i64 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// A jagged loop: hl::tile(start, end) with bounds loaded in the grid loop. The bounds are
// 0-d loads (one per program), the inner loop runs from one to the other at run time,
// its last tile masked (te_t2), and its block size is the config's. By default (the
// extent is unknown until run time) 16-row tiles, the loop unrolled 4 times, 128-wide
// programs of 4 warps, and the values it streams loaded evict_first (the spec says so).
// RUN: %helionc spec %examples/jagged_sum.cpp | FileCheck %s --check-prefix=SPEC
// SPEC: load_eviction_policies {{.*}}(3 entries; hintable: loads 2); default "" but first on load 2

// IR: block_sizes: bs0(tr, fixed 1, hint %nrows) bs1(td, hint %d) bs2(tk, hint sub(%end.1, %start.0))
// IR: let %start.0 = load %offsets[%tr.begin]
// IR-NEXT: let %end.1 = load %offsets[add(%tr.begin, 1)]
// IR: for %tk in tile(%start.0, %end.1) block bs2 {

// DEF: // config: {"block_sizes": [128, 16],
// DEF-SAME: "range_unroll_factors": [4], "num_warps": 4,
// DEF-SAME: "load_eviction_policies": ["", "", "first"]
// DEF: T_p_offsets v0_start;
// DEF-NEXT: v0_start = true ? p_offsets[int64(tb_t0) * stride_p_offsets_0]
// DEF: const int64 end_t2 = hd::to_compute(v1_end);
// DEF-NEXT: #pragma unroll 4
// DEF-NEXT: for (int64 tb_t2 = hd::to_compute(v0_start); tb_t2 < end_t2; tb_t2 += 16) {
// DEF-NEXT: const int64 te_t2 = hd::minimum<int64>(tb_t2 + 16, end_t2);
// DEF: load_hint<hd::Evict::first, true>(reinterpret_cast<const hvec<T_p_values, V_t1>*>(p_values +
// DEF-SAME: (X_t2 || tb_t2 + c_t2 < te_t2)

// CFG: constexpr int S_t1 = 64;
// CFG: #pragma unroll 2
// CFG-NEXT: for (int64 tb_t2 = hd::to_compute(v0_start); tb_t2 < end_t2; tb_t2 += 16) {

// CUBIN: jagged_sum.jagged_sum.bf16.offsets-i64.cubin: jagged_sum_kernel<hd::bf16, hd::int64, hd::bf16, 8, 0> (sm_80
