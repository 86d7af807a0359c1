// REQUIRES: frontend
// RUN: %helionc compile %s --kernel mm_addmm --emit cuda | FileCheck %s --check-prefix=DEFAULT
// RUN: echo '{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "pid_type": "flat", "l2_groupings": [1]}' > %t.c1.json
// RUN: %helionc compile %s --kernel mm_dot --config %t.c1.json --emit cuda | FileCheck %s --check-prefix=C1
// RUN: echo '{"block_sizes": [64, 128, 64], "num_warps": 8, "num_stages": 3, "indexing": "pointer"}' > %t.sm80.json
// RUN: %helionc compile %s --kernel mm_plus --config %t.sm80.json --emit cuda | FileCheck %s --check-prefix=SM80
// RUN: %helionc compile %s --kernel mm_bt --emit cuda | FileCheck %s --check-prefix=BT
// RUN: %helionc compile %s --kernel mm_two_stores --emit cuda | FileCheck %s --check-prefix=PAIRS
// RUN: %helionc spec %s --kernel mm_addmm | FileCheck %s --check-prefix=SPEC
// RUN: %helionc compile %s --kernel mm_addmm --emit ptx --dtype f32 | FileCheck %s --check-prefix=F32
// RUN: %helionc compile %s --kernel mm_bt --emit ptx --dtype f32 | FileCheck %s --check-prefix=F32BT
// RUN: %helionc compile %s --kernel mm_addmm --emit ptx --dtype bf16 | FileCheck %s --check-prefix=BF16
// Which device-library GEMM each matmul form and config becomes (RecognizeMatmul.cpp, MatmulRules.cpp).
#include <helion/hl.h>

using helion::Tensor;

// Default config: the fastest measured sm90 GEMM, tma_store when the output allows.
// DEFAULT: tensor-core matmul: A = x [M, K], B = y [K, N]; epilogue tma_store (TMA_STORE = 1) or pairs
// DEFAULT: __global__ void __launch_bounds__(384, 1) mm_addmm_kernel(
// DEFAULT: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 4, 2, false, true, TMA_STORE ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs>;
// DEFAULT: __global__ void __launch_bounds__(256, 1) mm_addmm_kernel_sm80(
// DEFAULT: constexpr bool kTf32__ = hd::is_same_v<T_p_x, float>;
// DEFAULT: using G__ = hd::GemmSm80<T_p_x, 128, kTf32__ ? 128 : 256, 128 / int(sizeof(T_p_x)), 4, false>;
//
// f32 operands: the sm80 kernel as tf32 (mma.sync m16n8k8, inputs rounded with
// cvt.rna), also on sm_90a, in 128 x 128 tiles; no wgmma. bf16: the sm90 kernel.
// F32: // mm_addmm_kernel_sm80<float, float, float, 0> (sm_90a)
// F32-NOT: wgmma
// F32: cvt.rna.tf32.f32
// F32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// F32-NOT: wgmma
// BF16: // mm_addmm_kernel<hd::bf16, hd::bf16, hd::bf16, 1> (sm_90a)
// BF16: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
HELION_KERNEL Tensor mm_addmm(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
    out[tm, tn] = acc;
  }
  return out;
}

// num_warps 8 = 1 consumer warpgroup; flat = not persistent.
// C1: __launch_bounds__(256, 1) mm_dot_kernel(
// C1: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 128, 128 / int(sizeof(T_p_x)), 5, 1, false, false, TMA_STORE
HELION_KERNEL Tensor mm_dot(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tm, tk], y[tk, tn], acc);
    out[tm, tn] = acc;
  }
  return out;
}

// indexing pointer: the sm80 kernel only; the epilogue scales and casts.
// SM80-NOT: hd::Gemm<
// SM80: mm_plus_epilogue
// SM80: p_out[row__ * stride_p_out_0 + col__ * stride_p_out_1] = hd::from_compute<T_p_out>((float(v{{[0-9]+}}) * float(p_alpha)));
// SM80: using G__ = hd::GemmSm80<T_p_x, 64, 128, 128 / int(sizeof(T_p_x)), kTf32__ ? 4 : 3, false>;
HELION_KERNEL Tensor mm_plus(const Tensor& x, const Tensor& y, float alpha) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc += hl::dot(x[tm, tk], y[tk, tn]);
    out[tm, tn] = acc * alpha;
  }
  return out;
}

// B read as [N, K] (x @ w^T): BTransposed.
// BT: B = w [N, K]
// BT: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 4, 2, true, true,
// B [N, K] in f32: A and B fragments both by ldmatrix (K-major), no 4-byte loads.
// F32BT: // mm_bt_kernel_sm80<float, float, float, 0> (sm_90a)
// F32BT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F32BT-NOT: ld.shared.b32
// F32BT: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
HELION_KERNEL Tensor mm_bt(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto n = w.size(0);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::addmm(acc, x[tm, tk], w[tn, tk].transpose(0, 1));
    out[tm, tn] = acc;
  }
  return out;
}

// Two stores: only the pairs epilogue (no transform for tma_store).
// PAIRS: epilogue pairs
// PAIRS-NOT: transform(
// PAIRS: hd::Gemm<T_p_x, float, 128, 256,
HELION_KERNEL void mm_two_stores(const Tensor& x, const Tensor& y, Tensor& out, Tensor& out2) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::addmm(acc, x[tm, tk], y[tk, tn]);
    out[tm, tn] = acc;
    out2[tm, tn] = hl::exp(acc);
  }
}

// SPEC: tensor-core matmul (hl::dot) restrictions:
// SPEC: num_warps               8 or 12
// SPEC: "block_sizes": [128, 256, 64]{{.*}}"l2_groupings": [8]{{.*}}"num_warps": 12, "num_stages": 4, "pid_type": "persistent_interleaved"{{.*}}"indexing": "tensor_descriptor"
