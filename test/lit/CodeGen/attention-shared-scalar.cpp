// REQUIRES: frontend
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %s --emit cuda | FileCheck %s
// RUN: %helionc compile %s --emit cubin --arch sm_90a --dtype bf16 --specialize 64 -o %t | FileCheck %s --check-prefix=CUBIN
// A scalar both the score and the epilogue read is one kernel parameter that both
// functors name (it was two parameters of one name: NVRTC rejected the kernel).
#include <helion/hl.h>

using helion::Tensor;

// CHECK: int M__, int N__, int B__, int* tile_counter__,
// CHECK-NEXT: const __grid_constant__ hd::TensorMap map_o__, int tma_o__, float p_gain, double p_scale, T_p_out* __restrict__ p_out,
// CHECK: score__{p_gain, p_scale};
// CHECK-NEXT: epi__{p_gain, p_out, stride_p_out_0, stride_p_out_1, stride_p_out_2};
// CHECK: int64 sqb__, int64 sqm__, int64 skb__, int64 skn__, int64 svb__, int64 svn__, float p_gain, double p_scale, T_p_out* __restrict__ p_out,
// CUBIN: attention_kernel<hd::bf16, hd::bf16, hd::bf16, 64, hd::bf16> (sm_90a
HELION_KERNEL Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, float gain) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    auto qt = q[tb, tm, hl::all];
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(qt, k[tb, tn, hl::all].transpose(1, 2)) * scale * gain;
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis] * gain;
  }
  return out;
}
