// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/dot_generic.cpp --stop-after template-plan | FileCheck %s --check-prefix=PLAN
// RUN: echo '{"block_sizes": [128, 128, 128, 32], "num_stages": 4}' > %t.wide.json
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.wide.json --stop-after template-plan | FileCheck %s --check-prefix=WIDE
// RUN: echo '{"block_sizes": [32, 128, 64, 32]}' > %t.narrow.json
// RUN: %helionc compile %examples/dot_generic.cpp --config %t.narrow.json --stop-after template-plan | FileCheck %s --check-prefix=NARROW
// RUN: %helionc compile %examples/dot_generic.cpp -o %t/mlp
// RUN: FileCheck %s --check-prefix=HOST < %t/mlp/dot_generic.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/mlp/dot_generic.helion.cpp
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_chain_t --stop-after template-plan | FileCheck %s --check-prefix=KT
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel dot_chain_t --emit host | FileCheck %s --check-prefix=KT-HOST
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel mlp_bias --emit host | FileCheck %s --check-prefix=BIAS
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel bmm_chain_t --stop-after template-plan | FileCheck %s --check-prefix=BMM
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel bmm_chain_t --emit host | FileCheck %s --check-prefix=BMM-HOST
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel bmm_chain_all --stop-after template-plan | FileCheck %s --check-prefix=ALL
// RUN: %helionc compile %S/../../gpu/dot_kernels.cpp --kernel bmm_chain_all --emit host | FileCheck %s --check-prefix=ALL-HOST
// RUN: %helionc spec %examples/dot_generic.cpp | FileCheck %s --check-prefix=SPEC
// RUN: %helionc compile %s --stop-after template-plan | FileCheck %s --check-prefix=LIT
// RUN: %helionc compile %s -o %t/lit
// RUN: FileCheck %s --check-prefix=LIT-HOST < %t/lit/chain.helion.cpp
// RUN: %host_cxx -DHELIONC_C_API %t/lit/chain.helion.cpp
// RUN: %helionc compile %s --kernel mlp_gelu_bias --emit cubin --arch sm_90a --dtype bf16 -o %t/cubin | FileCheck %s --check-prefix=CUBIN
// RUN: %helionc compile %s --kernel mlp_gelu_bias --emit cubin --arch sm_90a --dtype f16 -o %t/cubin16 | FileCheck %s --check-prefix=CUBIN16
// RUN: %helionc compile %s --kernel mlp_gelu_bias --emit cubin --arch sm_80 --dtype f16 -o %t/cubin80 | FileCheck %s --check-prefix=CUBIN80
//
// Two chained dots, act(a @ b1) @ b2 per output tile (an MLP; attention without its
// softmax), are a generic kernel that also runs as the sm_90a chain template
// (chain_sm90.cuh): recognize-templates records the loop (`chain:`), template-plan
// the template's tiles from the config's (`template: chain`), and the launcher tries
// the chain kernel first (docs/gemm.md, "Chained dots").
#include <helion/hl.h>

using helion::Tensor;

// PLAN: chain: a %x, b1 %w1, b2 %w2, acc %acc.0, tiles [tm, tn], hidden th %hidden.1, k loop tk, act cast<dtype(%x)>(maximum(%hidden.1, full([tm, th], 0.0, f32))), epilogue 1
// PLAN: template: chain sm90 64x64 consumers 1 dv <= 256 stages 3/3/3, 3/3/3, 3/3/3
// Two consumer warpgroups (tm 128); BN 128 caps the output tile at 128 columns (the
// consumers' registers) and the ring is shorter where shared memory ends.
// WIDE: template: chain sm90 128x128 consumers 2 dv <= 128 stages 4/4/0, 4/3/0, 2/0/0
// A rows tile of 32 runs the chain's 64-row tiles (the generic kernel keeps 32).
// NARROW: chain: a %x
// NARROW: template: chain sm90 64x64 consumers 1
// HOST: static bool helionc_launch_mlp_relu_chain(const helion::Tensor& p_x, const helion::Tensor& p_w1, const helion::Tensor& p_w2, int64_t p_m, int64_t p_n, int64_t p_h, int64_t p_k, const helion::Tensor& p_out) {
// HOST: #include "helion/chain_sm90.cuh"
// HOST: struct mlp_relu_act {
// HOST: return float(hd::maximum<float>(x__, float(0.0f)));
// HOST: struct mlp_relu_chain_epilogue {
// HOST: __device__ __forceinline__ float value(int64 b__, int64 row__, int64 col__, float o__) const {
// HOST: *reinterpret_cast<hd::vec<T_p_out, 2>*>(ptr__) = w__;
// HOST: template <class T_p_x, class T_p_w1, class T_p_w2, class T_p_out, int DK, int DV>
// HOST: __global__ void __launch_bounds__(256, 1) mlp_relu_chain_kernel(
// HOST: using C__ = hd::ChainSm90<T_p_x, DK, DV, 64, 1, kStages[DK / 128][DV / 128], false>;
// HOST: C__::run(&map_a__, &map_b1__, &map_b2__, B__, M__, H__, N__, act__, epi__, smem__);
// HOST: if (hc_dev.major != 9) return false;
// HOST: const int64_t hc_B = 1, hc_M = p_m, hc_N = p_n, hc_H = p_h, hc_K = p_k;
// HOST: if (hc_K != 64 && hc_K != 128 && hc_K != 256) return false;
// HOST: t.device().type == helion::DeviceType::CUDA && t.dim() == 2 &&
// HOST: if (!hc_fits(p_x, hc_M, hc_K) || !hc_fits(p_w1, hc_K, hc_H) || !hc_fits(p_w2, hc_H, hc_N))
// HOST: name = "mlp_relu_chain_kernel<";
// Unbatched operands are 3-D maps of one batch.
// HOST: d.sizes = {1, rows, cols};
// HOST-NEXT: d.strides = {rows * t.stride(0), t.stride(0), 1};
// HOST-NEXT: d.box = {1, boxRows, 64};
// HOST: CUtensorMap hc_mapA = hc_map(p_x, hc_M, hc_K, 64), hc_mapB1 = hc_map(p_w1, hc_K, hc_H, int32_t(hc_K)), hc_mapB2 = hc_map(p_w2, hc_H, hc_N, 64);
// HOST: const int64_t hc_ctas = hc_B * helion::rt::cdiv(hc_M, int64_t(64)) * helion::rt::cdiv(hc_N, hc_DV);
// HOST: return true;
// HOST: static void helionc_launch_mlp_relu(
// HOST-NEXT: // Two chained dots: the chain template where the device and tensors fit it.
// HOST-NEXT: if (helionc_launch_mlp_relu_chain(p_x, p_w1, p_w2, p_m, p_n, p_h, p_k, p_out))
// HOST-NEXT: return;
// HOST: name = "mlp_relu_kernel<";
// (q kt^T) v: b1 read transposed, attention's K layout (B1KMajor).
// helionc spec says which keys pick the chain template.
// SPEC: chain template          two chained dots: on sm_90a they run as the chain template where the tensors fit it
// SPEC: rows and hidden tiles are 128 where tm and th are 128 or more, else 64;
// A hidden-layer bias b1[th] is read by the activation functor at the hidden column.
// BIAS: struct mlp_bias_act {
// BIAS-NEXT: const T_p_b1* __restrict__ p_b1;
// BIAS-NEXT: int64 stride_p_b1_0;
// BIAS: (hd::to_compute(p_b1[col__ * stride_p_b1_0]))
// BIAS: int B__, int M__, int H__, int N__, const T_p_b1* __restrict__ p_b1, int64 stride_p_b1_0, const T_p_b2* __restrict__ p_b2, int64 stride_p_b2_0, T_p_out* __restrict__ p_out,
// KT: chain: a %q, b1 %kt transposed, b2 %v
// KT-HOST: using C__ = hd::ChainSm90<T_p_q, DK, DV, 64, 1, kStages[DK / 128][DV / 128], true>;
// KT-HOST: hc_mapB1 = hc_map(p_kt, hc_H, hc_K, 64)
// Batched ([tb, tm, te], tb of block size 1): every operand and the output are 3-D,
// the batch first; B x row tiles x column tiles CTAs; the epilogue indexes the batch.
// BMM: chain: a %q, b1 %kt transposed, b2 %v, acc %acc.0, tiles [tb, tm, te], hidden tn %s.1, k loop tk, act cast<dtype(%q)>(%s.1), epilogue 1
// BMM: template: chain sm90 64x64 consumers 1
// BMM-HOST: T_p_out* ptr__ = p_out + (b__ * stride_p_out_0 + row__ * stride_p_out_1 + col__ * stride_p_out_2);
// BMM-HOST: if (stride_p_out_2 == 1 &&
// BMM-HOST: const int64_t hc_B = p_b, hc_M = p_m, hc_N = p_e, hc_H = p_n, hc_K = p_d;
// BMM-HOST: t.dim() == 3 &&
// BMM-HOST: t.size(1) >= rows && t.size(2) >= cols &&
// BMM-HOST: t.size(0) >= hc_B && t.stride(0) % 8 == 0 && t.stride(0) > 0 &&
// BMM-HOST: d.sizes = {hc_B, rows, cols};
// BMM-HOST-NEXT: d.strides = {t.stride(0), t.stride(1), 1};
// BMM-HOST: void* hc_args[] = {&hc_mapA, &hc_mapB1, &hc_mapB2, &hc_iB, &hc_iM, &hc_iH, &hc_iN,
// The same with whole head dims ([tb, tm], q[tb, tm, :], no K loop, acc [tb, tm, :]):
// K is q's last dim, N the accumulator's extent, the output columns tiled by the
// template (the default config's rows tile of 16 runs its 64-row tiles).
// ALL: chain: a %q, b1 %kt transposed, b2 %v, acc %acc.0, tiles [tb, tm, :], hidden tn %s.1, k whole, act cast<dtype(%q)>(%s.1), epilogue 1
// ALL: template: chain sm90 64x64 consumers 1
// ALL-HOST: T_p_out* ptr__ = p_out + (b__ * stride_p_out_0 + row__ * stride_p_out_1 + col__ * stride_p_out_2);
// ALL-HOST: const int64_t hc_B = p_b, hc_M = p_m, hc_N = p_d, hc_H = p_n, hc_K = p_q.size(2);

// A gelu-like activation with a scalar, a bias in the epilogue, an f16 cast: the
// act functor gets the scalar, the epilogue loads the bias at its column, and the
// launcher takes the template only for f16 tensors.
// LIT: chain: a %x, b1 %w1, b2 %w2, acc %acc.0, tiles [tm, tn], hidden th %s.1, k loop tk, act cast<f16>(mul(%s.1, sigmoid(mul(%s.1, %alpha)))), epilogue 2
// LIT-HOST: struct mlp_gelu_bias_act {
// LIT-HOST-NEXT: float p_alpha;
// LIT-HOST: return float((float(x__) * float(hd::sigmoid(float((float(x__) * float(p_alpha)))))));
// LIT-HOST: hd::to_compute(p_bias[col__ * stride_p_bias_0]);
// alpha is read by both functors and is one kernel parameter.
// LIT-HOST: int B__, int M__, int H__, int N__, float p_alpha, const T_p_bias* __restrict__ p_bias, int64 stride_p_bias_0, T_p_out* __restrict__ p_out, int64 stride_p_out_0, int64 stride_p_out_1) {
// LIT-HOST: const mlp_gelu_bias_act<T_p_x, T_p_w1, T_p_w2, T_p_bias, T_p_out> act__{p_alpha};
// LIT-HOST-NEXT: const mlp_gelu_bias_chain_epilogue<T_p_x, T_p_w1, T_p_w2, T_p_bias, T_p_out> epi__{p_bias, stride_p_bias_0, p_alpha, p_out, stride_p_out_0, stride_p_out_1};
// LIT-HOST: if (p_x.dtype() != helion::DType::f16) return false;
HELION_KERNEL Tensor mlp_gelu_bias(const Tensor& x, const Tensor& w1, const Tensor& w2,
                                   const Tensor& bias, float alpha) {
  auto [m, k] = x.shape<2>();
  auto h = w1.size(1);
  auto n = w2.size(1);
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto th : hl::tile(h)) {
      auto s = hl::zeros({tm, th}, hl::f32);
      for (auto tk : hl::tile(k))
        s = hl::dot(x[tm, tk], w1[tk, th], s);
      acc = hl::dot((s * hl::sigmoid(s * alpha)).to(hl::f16), w2[th, tn], acc);
    }
    out[tm, tn] = acc * alpha + bias[tn];
  }
  return out;
}

// Not a chain: the activation reads a tensor at [tm, th] (the template's activation
// loads at [th] only: it runs on rows past M too), and a reduction of the hidden block.
// Both stay generic kernels.
// LIT-NOT: chain: a %x, b1 %w1, b2 %w2, acc %acc.0, tiles [tm, tn], hidden th %s.1, k loop tk, act cast<dtype(%x)>
// LIT-HOST-NOT: static bool helionc_launch_mlp_{{scaled|f32_act|rowsum}}_chain
HELION_KERNEL Tensor mlp_scaled(const Tensor& x, const Tensor& w1, const Tensor& w2,
                                const Tensor& scale) {
  auto [m, k] = x.shape<2>();
  auto h = w1.size(1);
  auto n = w2.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto th : hl::tile(h)) {
      auto s = hl::zeros({tm, th}, hl::f32);
      for (auto tk : hl::tile(k))
        s = hl::dot(x[tm, tk], w1[tk, th], s);
      acc = hl::dot((s * scale[tm, th]).to(x.dtype()), w2[th, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// An activation cast to f32: the template would round it to 16 bits.
// LIT-NOT: act cast<f32>
HELION_KERNEL Tensor mlp_f32_act(const Tensor& x, const Tensor& w1, const Tensor& w2) {
  auto [m, k] = x.shape<2>();
  auto h = w1.size(1);
  auto n = w2.size(1);
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto th : hl::tile(h)) {
      auto s = hl::zeros({tm, th}, hl::f32);
      for (auto tk : hl::tile(k))
        s = hl::dot(x[tm, tk], w1[tk, th], s);
      acc = hl::dot(hl::maximum(s, hl::zeros({tm, th}, hl::f32)).to(hl::f32), w2[th, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

HELION_KERNEL Tensor mlp_rowsum(const Tensor& x, const Tensor& w1, const Tensor& w2) {
  auto [m, k] = x.shape<2>();
  auto h = w1.size(1);
  auto n = w2.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto th : hl::tile(h)) {
      auto s = hl::zeros({tm, th}, hl::f32);
      for (auto tk : hl::tile(k))
        s = hl::dot(x[tm, tk], w1[tk, th], s);
      auto r = hl::sum(s, 1);
      acc = hl::dot((s - r[hl::all, hl::newaxis]).to(x.dtype()), w2[th, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// The sm_90a cubins: the generic kernel and the chain template's largest instantiation
// (K 256, 256 output columns) for bf16... which this kernel's f16 cast rules out.
// CUBIN: chain.mlp_gelu_bias.bf16.cubin
// CUBIN-NOT: chain.k
// CUBIN80-NOT: chain.k
// CUBIN16: chain.mlp_gelu_bias.f16.cubin
// CUBIN16: chain.mlp_gelu_bias.f16.chain.k256.v256.cubin: mlp_gelu_bias_chain_kernel<hd::f16, hd::f16, hd::f16, hd::f16, hd::f16, 256, 256> (sm_90a
