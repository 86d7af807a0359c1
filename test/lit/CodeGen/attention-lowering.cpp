// REQUIRES: frontend
// RUN: echo '{"block_sizes": [128, 64], "num_warps": 4, "num_stages": 2, "indexing": "pointer"}' > %t.sm80.json
// RUN: %helionc compile %examples/attention.cpp --config %t.sm80.json --emit cuda | FileCheck %s --check-prefix=DEFAULT
// RUN: echo '{"block_sizes": [128, 32], "num_warps": 8, "num_stages": 2, "indexing": "block_ptr", "pid_type": "xyz"}' > %t.w8.json
// RUN: %helionc compile %examples/attention.cpp --config %t.w8.json --emit cuda | FileCheck %s --check-prefix=W8
// RUN: %helionc compile %s --kernel softcap --emit cuda | FileCheck %s --check-prefix=SOFTCAP
// RUN: %helionc spec %examples/attention.cpp | FileCheck %s --check-prefix=SPEC
// The spec lists only keys the attention templates take (configs.random checks that
// each changes the code): no loop order, L2 grouping, reduction loop, programs per SM,
// register limit, eviction hint or vector width.
// RUN: %helionc spec %examples/attention.cpp | FileCheck %s --check-prefix=KEYS --implicit-check-not=loop_orders --implicit-check-not=l2_grouping --implicit-check-not=reduction_loops --implicit-check-not=num_sm_multiplier --implicit-check-not=maxnreg --implicit-check-not=load_eviction --implicit-check-not=vector_bytes
// Which device-library attention kernel the flash-attention pattern and each config
// become (RecognizeAttention.cpp), and the functors made from the IR (EmitAttention.cpp).
#include <helion/hl.h>

using helion::Tensor;

// The sm80 kernel's default (the fallback of the sm90 default, attention-sm90.cpp):
// 4 warps x 32 query rows, 64 keys per block.
// DEFAULT: // flash attention: q = q, k = k, v = v [b, seq, d]; AttentionSm80 BM 128, BN 64, 4 warps x 2 m16 tiles
// DEFAULT: #include "helion/attention_sm80.cuh"
// DEFAULT: struct attention_score {
// DEFAULT-NEXT: double p_scale;
// DEFAULT-NEXT: static constexpr bool kCausal = false;
// DEFAULT-NEXT: __device__ __forceinline__ float operator()(float x__, int64 row__, int64 col__) const {
// DEFAULT-NEXT: return float((float(x__) * float(p_scale)));
// DEFAULT: struct attention_epilogue {
// DEFAULT: float value(int64 b__, int64 row__, int64 col__, float o__, float l__, float m__) const {
// The row sum divides as a broadcast divisor (one reciprocal per row).
// DEFAULT: return float(hd::div_bcast(float(v2), float(v1)));
// DEFAULT: *reinterpret_cast<hd::vec<T_p_out, 2>*>(ptr__) = w__;
// DEFAULT: __global__ void __launch_bounds__(128, 1) attention_kernel(
// DEFAULT: using A__ = hd::AttentionSm80<T_p_q, p_d, 64, 4, 2>;
// DEFAULT: A__::run(q__, k__, v__, M__, N__, sqb__, sqm__, skb__, skn__, svb__, svn__, score__, epi__, smem__);

// W8: AttentionSm80 BM 128, BN 32, 8 warps x 1 m16 tiles
// W8: __global__ void __launch_bounds__(256, 1) attention_kernel(
// W8: using A__ = hd::AttentionSm80<T_p_q, p_d, 32, 8, 1>;

// A soft-capped score (Gemma 2) and two outputs: both functors follow the IR.
// SOFTCAP: struct softcap_score {
// SOFTCAP-NEXT: double p_scale;
// SOFTCAP: return float((float(hd::tanh(float((float((float(x__) * float(p_scale))) * float(0.0199999996f))))) * float(50.0f)));
// SOFTCAP: void apply(int64 b__, int64 row__, int64 col__, float o__, float l__, float m__) const {
// SOFTCAP: float [[R:v[0-9]+]] = (float(1.0f) / float(
// SOFTCAP: p_out[b__ * stride_p_out_0 + row__ * stride_p_out_1 + col__ * stride_p_out_2] = hd::from_compute<T_p_out>((float({{v[0-9]+}}) * float([[R]])));
// SOFTCAP: p_unnormalized[b__ * stride_p_unnormalized_0 + row__ * stride_p_unnormalized_1 + col__ * stride_p_unnormalized_2] = hd::from_compute<T_p_unnormalized>({{v[0-9]+}});
// SOFTCAP: apply(b__, row__, col__ + 1, o1__, l__, m__);
HELION_KERNEL Tensor softcap(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& unnormalized) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::tanh(hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2)) * scale *
                        0.02f) * 50.0f;
      auto mi_next = hl::maximum(hl::amax(s, 2), mi);
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = hl::sum(p, 2) + alpha * li;
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    auto r = 1.0f / li;
    out[tb, tm, hl::all] = acc * r[hl::all, hl::all, hl::newaxis];
    unnormalized[tb, tm, hl::all] = acc;
  }
  return out;
}

// SPEC: flash attention (batched hl::dot) restrictions:
// SPEC: indexing                all tensor_descriptor: the sm90 kernel (TMA + wgmma, sm_90a; the sm80 one off Hopper); else pointer or block_ptr: the sm80 kernel
// SPEC: num_warps               sm80: 4 or 8; sm90: 8, 12 or 16 (1 producer + 1 to 3 consumer warpgroups)
// SPEC: pid_type                flat or xyz (one CTA per batch and row block), or persistent_interleaved (sm90: min(tiles, #SMs) CTAs looping over the tiles; sm80: as flat)
// SPEC: default config:
// SPEC: {"block_sizes": [128, 128], "num_warps": 12, "num_stages": 2, "pid_type": "persistent_interleaved", "indexing": "tensor_descriptor"}

// KEYS: config spec of kernel 'attention'
// KEYS: block_sizes
// KEYS: num_warps               warps per program: 4 | 8 | 12 | 16
// KEYS: num_stages              pipeline stages of loads: 2 | 3 | 4
// KEYS: pid_type
// KEYS: indexing
