// REQUIRES: frontend
// RUN: %helionc compile %examples/histogram.cpp --kernel histogram --stop-after privatize-atomics | FileCheck %s
// RUN: echo '{"block_sizes": [1024], "pid_type": "flat"}' > %t.flat.json
// RUN: %helionc compile %examples/histogram.cpp --kernel histogram --config %t.flat.json --stop-after privatize-atomics | FileCheck %s --check-prefix=FLAT
// RUN: %helionc compile %examples/histogram.cpp --kernel histogram --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %examples/histogram.cpp --kernel histogram --config %t.flat.json --emit cuda | FileCheck %s --check-prefix=CUDA-FLAT
// RUN: echo '{"block_sizes": [1024], "pid_type": "persistent_blocked"}' > %t.pers.json
// RUN: %helionc compile %s --config %t.pers.json --stop-after privatize-atomics | FileCheck %s --check-prefix=READ
// RUN: rm -rf %t.cubin && %helionc compile %examples/histogram.cpp --kernel histogram --emit cubin --dtype f32,counts=i32 --dtype bf16,counts=bf16 --arch sm_80 -o %t.cubin
// RUN: rm -rf %t.cubin && %helionc compile %examples/histogram.cpp --kernel histogram --emit cubin --dtype f32,counts=f64 --dtype f32,counts=f16 --arch sm_90a -o %t.cubin
// privatize-atomics marks the atomic adds of a persistent kernel `private` when nothing
// else in the kernel touches their tensor: each program adds into its own shared-memory
// copy, zeroed first and added to the tensor once at its end. The histogram's default
// config is persistent for that reason; a flat grid keeps plain atomics, and so does a
// tensor the kernel also loads.

// CHECK:      // -----// IR after privatize-atomics //----- //
// CHECK:      for %tile in {{.*}} grid(persistent_interleaved
// CHECK:      atomic_add private store %counts[gather(%bin.0)] += 1

// FLAT:       grid(flat
// FLAT:       atomic_add store %counts[gather(%bin.0)] += 1

// CUDA-LABEL: void histogram_kernel(
// CUDA:       constexpr int PRIV_p_counts = 16384 / int(sizeof(hd::private_acc_t<T_p_counts>));
// CUDA-NEXT:  __shared__ hd::private_acc_t<T_p_counts> priv_p_counts[PRIV_p_counts];
// CUDA-NEXT:  const int64 span_p_counts = (true && size_p_counts_0 > 0) ? int64(1 + (size_p_counts_0 - 1) * stride_p_counts_0) : int64(0);
// CUDA-NEXT:  const bool use_priv_p_counts = span_p_counts <= PRIV_p_counts;
// CUDA:       __syncthreads();
// CUDA:       if (use_priv_p_counts) hd::atomic_add(&priv_p_counts[int64(v0_bin[i_t0]) * stride_p_counts_0], hd::private_acc_t<T_p_counts>(v));
// CUDA-NEXT:  else hd::atomic_add(&p_counts[int64(v0_bin[i_t0]) * stride_p_counts_0], hd::from_compute<T_p_counts>(v));
// CUDA:       __syncthreads();
// CUDA-NEXT:  if (use_priv_p_counts)
// CUDA-NEXT:    for (int i = threadIdx.x; i < span_p_counts; i += NT)
// CUDA-NEXT:      if (priv_p_counts[i] != hd::private_acc_t<T_p_counts>(0)) hd::atomic_add(&p_counts[i], hd::from_compute<T_p_counts>(priv_p_counts[i]));

// CUDA-FLAT-NOT: priv_counts
// CUDA-FLAT:     hd::atomic_add(&p_counts[

// READ:       atomic_add store %counts[
// READ-NOT:   private
#include <helion/hl.h>

using helion::Tensor;

// counts is also loaded: another program's adds must be visible, so no private copy.
HELION_KERNEL Tensor count_and_read(const Tensor& idx, const Tensor& counts) {
  Tensor seen = helion::empty_like(idx);
  for (auto t : hl::tile(idx.size(0))) {
    auto i = idx[t];
    seen[t] = counts[i];
    hl::atomic_add(counts[i], 1);
  }
  return seen;
}
