// REQUIRES: frontend
// RUN: %helionc compile %examples/histogram.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/histogram.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %examples/histogram.cpp --kernel histogram --emit cubin --dtype f32,counts=bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// RUN: not %helionc compile %examples/histogram.cpp --kernel histogram --emit cubin --dtype f32,counts=i8 -o %t 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=DIAG
// hl::atomic_add is a Store that adds: never vectorized, one thread per element (a
// thread that holds a broadcast copy or replicates the layout stays out), through
// hd::atomic_add; a target dtype without an atomic add is a located error.

// IR: atomic_add store %counts[gather(%bin.0)] += 1
// IR: let %rows_of.0 = load %index[%tn]
// IR-NEXT: atomic_add store_scatter %out[gather(%rows_of.0[:, newaxis]), gather(%td.index[newaxis, :])] += cast<f32>(load %src[%tn, %td])

// CUDA-LABEL: void histogram_kernel(
// CUDA:      if (int(threadIdx.x) == th_t0 * ST_t0) {
// CUDA:      if ((X_t0 || tb_t0 + c_t0 < te_t0)) {
// CUDA-NEXT:   const hd::compute_t<T_counts> v = int64(1);
// CUDA-LABEL: void scatter_add_kernel(
// CUDA:      if (int(threadIdx.x) == th_t1 * ST_t1 + th_t0 * ST_t0) {
// CUDA:      hd::atomic_add(&out[

// CUBIN: histogram.histogram.f32.counts-bf16.cubin: histogram_kernel<float, hd::bf16, 4, 0> (sm_80
// DTYPE: histogram.cpp:[[#]]:5: error: atomic_add: a tensor of dtype i8 cannot be accumulated into atomically (expected f32, f64, f16, bf16, i32 or i64)
#include <helion/hl.h>

#include <utility>

using helion::Tensor;

HELION_KERNEL Tensor bad_atomics(const Tensor& x, const Tensor& counts) {
  for (auto t : hl::tile(x.sizes())) {
    auto idx = x[t].to(hl::i64);
    auto r = counts[idx];
    // DIAG: cuda-atomics.cpp:[[@LINE+1]]:20: error: expected a tensor subscript such as hist[idx] as the target of hl::atomic_add, found 'std::move(r)'
    hl::atomic_add(std::move(r), 1);
  }
  return counts;
}
