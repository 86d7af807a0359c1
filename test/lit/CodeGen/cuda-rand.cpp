// REQUIRES: frontend
// RUN: %helionc compile %examples/dropout.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/dropout.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %examples/dropout.cpp --emit cubin --dtype bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// hl::rand is elementwise: hd::rand_uniform (runtime/device/helion/random.cuh) of the
// seed and each offset, compared in f32 with the kernel's f32 p.

// IR: let %offsets.0 = add(mul(%tm.index[:, newaxis], %n), %tn.index[newaxis, :])
// IR-NEXT: let %keep.1 = gt(rand(%seed, %offsets.0), %p)

// CUDA: int64 seed,
// CUDA: = bool((hd::rand_uniform(int64(seed), int64(v0_offsets[i_t1][i_t0])) > p));

// CUBIN: dropout.dropout.bf16.cubin: dropout_kernel<hd::bf16, hd::bf16, 8, 0> (sm_80
