// REQUIRES: frontend
// RUN: %helionc compile %examples/dropout.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/dropout.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %examples/dropout.cpp --emit cubin --dtype bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// hl::rand gets its own let (hoist-blocks). Its offsets step by one along tn, the
// vectorized tile (rand-runs), so each thread's run of V_t1 numbers comes from
// hd::RandStream::uniform_run (runtime/device/helion/random.cuh): whole Philox blocks
// when the run starts one, else a walk with one evaluation per four consecutive
// offsets. The mask compares it in f32 with the kernel's f32 p.

// IR: let %offsets.0 = add(mul(%tm.index[:, newaxis], %n), %tn.index[newaxis, :])
// IR-NEXT: let %keep.1 = gt(rand(%seed, %offsets.0), %p)

// CUDA: int64 p_seed,
// CUDA: hd::RandStream [[RS:rs_[0-9]+]];
// CUDA: for (int g_t1 = 0; g_t1 < E_t1 / V_t1; ++g_t1) {
// CUDA: float [[RR:rr_[0-9]+]][V_t1];
// CUDA: const int i_t1 = g_t1 * V_t1;
// CUDA: [[RS]].uniform_run<V_t1>(int64(p_seed), int64(v0_offsets[i_t1][i_t0]), [[RR]]);
// CUDA: const int i_t1 = g_t1 * V_t1 + v;
// CUDA-NEXT: [[R:v[0-9]+__t[0-9]+]][i_t1][i_t0] = float([[RR]][v]);
// CUDA: = bool(([[R]][i_t1][i_t0] > p_p));

// CUBIN: dropout.dropout.bf16.cubin: dropout_kernel<hd::bf16, hd::bf16, 8, 0> (sm_80
