// REQUIRES: frontend
// RUN: %helionc compile %s --emit ir | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %s --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %s --emit cubin --dtype f32,offsets=i64 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// hl::grid(begin, end) with loaded bounds, written straight into the loop header: the
// loads become lets before the loop (hoist-blocks), in the enclosing tile loop.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor jagged_max(const Tensor& values, const Tensor& offsets) {
  auto [total, d] = values.shape<2>();
  const int64_t nrows = offsets.size(0) - 1;
  Tensor out = helion::empty({nrows, d}, hl::f32, values.device());
  for (int64_t r : hl::grid(nrows)) {
    for (auto td : hl::tile(d)) {
      auto acc = hl::full({td}, -INFINITY, hl::f32);
      for (int64_t i : hl::grid(offsets[r], offsets[r + 1]))
        acc = hl::maximum(acc, values[i, td].to(hl::f32));
      out[r, td] = acc;
    }
  }
  return out;
}

// IR: for %i in grid(load %offsets[%r.begin], load %offsets[add(%r.begin, 1)]) {

// CUDA: for (int64 tb_t1 = int64(0); tb_t1 < end_t1; tb_t1 +=
// CUDA: = true ? p_offsets[int64(tb_t0) * stride_p_offsets_0] :
// CUDA: = true ? p_offsets[int64((int64(tb_t0) + int64(int64(1)))) * stride_p_offsets_0] :
// CUDA: const int64 end_t2 = hd::to_compute(v{{[0-9]+}}__t1);
// CUDA-NEXT: for (int64 tb_t2 = hd::to_compute(v{{[0-9]+}}__t0); tb_t2 < end_t2; tb_t2 += 1) {

// CUBIN: cuda-jagged-grid.jagged_max.f32.offsets-i64.cubin: jagged_max_kernel<float, hd::int64, float, 4, 0> (sm_80
