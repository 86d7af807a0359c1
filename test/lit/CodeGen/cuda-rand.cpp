// REQUIRES: frontend
// RUN: %helionc compile %examples/dropout.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/dropout.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %examples/dropout.cpp --emit cubin --dtype bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// hl::rand gets its own let (hoist-blocks), printed as a walk of the thread's offsets
// through one hd::RandStream (runtime/device/helion/random.cuh): one Philox evaluation
// per four consecutive offsets. The mask compares it in f32 with the kernel's f32 p.

// IR: let %offsets.0 = add(mul(%tm.index[:, newaxis], %n), %tn.index[newaxis, :])
// IR-NEXT: let %keep.1 = gt(rand(%seed, %offsets.0), %p)

// CUDA: int64 seed,
// CUDA: hd::RandStream [[RS:rs_[0-9]+]];
// CUDA: [[R:v[0-9]+__t[0-9]+]][i_t1][i_t0] = float([[RS]].uniform(int64(seed), int64(v0_offsets[i_t1][i_t0])));
// CUDA: = bool(([[R]][i_t1][i_t0] > p));

// CUBIN: dropout.dropout.bf16.cubin: dropout_kernel<hd::bf16, hd::bf16, 8, 0> (sm_80
