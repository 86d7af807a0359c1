// REQUIRES: frontend
// RUN: %helionc compile %examples/histogram.cpp --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %examples/histogram.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %examples/histogram.cpp --kernel histogram --emit cubin --dtype f32,counts=bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// RUN: not %helionc compile %examples/histogram.cpp --kernel histogram --emit cubin --dtype f32,counts=i8 -o %t 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=DIAG
// hl::atomic_add is a Store that adds: one thread per element (a thread that holds a
// broadcast copy or replicates the layout stays out), through hd::atomic_add; along
// the inner axis, when the target's last subscript is that tile (scatter_add's
// td.index()), a thread's vector of V elements through one hd::atomic_add_vec. A
// target dtype without an atomic add is a located error.

// IR: atomic_add store %counts[gather(%bin.0)] += 1
// IR: let %rows_of.0 = load %index[%tn]
// IR-NEXT: atomic_add store_scatter %out[gather(%rows_of.0[:, newaxis]), gather(%td.index[newaxis, :])] += cast<f32>(load %src[%tn, %td])

// CUDA-LABEL: void histogram_kernel(
// CUDA:      if (int(threadIdx.x) == th_t0 * ST_t0) {
// CUDA:      if ((X_t0 || tb_t0 + c_t0 < te_t0)) {
// CUDA-NEXT:   const hd::compute_t<T_p_counts> v = int64(1);
// CUDA-LABEL: void scatter_add_kernel(
// CUDA:      if (int(threadIdx.x) == th_t1 * ST_t1 + th_t0 * ST_t0) {
// CUDA:      for (int g_t1 = 0; g_t1 < E_t1 / V_t1; ++g_t1) {
// CUDA:        o_t1 = int64(hd::to_compute(v0_rows_of[i_t0])) * stride_p_out_0 + int64(int64(tb_t1 + c_t1)) * stride_p_out_1;
// CUDA:        av[v] = float(hd::to_compute(v1__t0[i_t1][i_t0]));
// CUDA:      if (in_t1) hd::atomic_add_vec<V_t1>(p_out + o_t1, av);

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
