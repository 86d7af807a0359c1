// REQUIRES: frontend
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm --emit ptx --dtype f8e4m3,scale_x=f32,scale_w=f32,out=bf16 | FileCheck %s --check-prefix=E4M3
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm --emit ptx --dtype f8e5m2,scale_x=f32,scale_w=f32,out=bf16 | FileCheck %s --check-prefix=E5M2
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm --emit ptx --arch sm_80 --dtype f8e4m3,scale_x=f32,scale_w=f32,out=bf16 | FileCheck %s --check-prefix=SM80
// RUN: echo '{"block_sizes": [128, 128, 64], "num_warps": 8, "num_stages": 5, "pid_type": "flat", "indexing": "tensor_descriptor"}' > %t.c1.json
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm --config %t.c1.json --emit ptx --dtype f8e4m3,scale_x=f32,scale_w=f32,out=bf16 | FileCheck %s --check-prefix=C1
// RUN: not %helionc compile %s --kernel mm_f8_kn --emit cubin --dtype f8e4m3 -o %t.d 2>&1 | FileCheck %s --check-prefix=KN
// RUN: not %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm --emit cubin --dtype x=f8e4m3,w=bf16,scale_x=f32,scale_w=f32,out=bf16 -o %t.d 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: %helionc compile %s --kernel mm_f8_kn --emit cubin --dtype bf16 -o %t.ok | FileCheck %s --check-prefix=KNBF16
// An fp8 output (scaled_mm_f8): at BN 256 the sm90 kernel's TMA_STORE instantiation
// stages 1-byte elements in pairs (st.shared.u16) and stores them with TMA, and the
// launcher asks tma_store of any element size; at BN 128 an 8-bit output takes the pairs
// form (a 128-column box per slice), in the kernel and the launcher alike.
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm_f8 --emit ptx --dtype f8e4m3,scale_x=f32,scale_w=f32,out=f8e4m3 | FileCheck %s --check-prefix=F8OUT
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm_f8 --emit host | FileCheck %s --check-prefix=F8HOST
// F8OUT: // scaled_mm_f8_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::f8e4m3, 1> (sm_90a)
// F8OUT: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// F8OUT: st.shared.u16
// F8OUT: cp.async.bulk.tensor.2d.global.shared
// F8HOST: const bool tmaStore = sm90 && p_out.dim() == 2 &&
// RUN: echo '{"block_sizes": [128, 128, 64], "num_warps": 12, "num_stages": 6, "pid_type": "flat", "indexing": "tensor_descriptor"}' > %t.bn128.json
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm_f8 --config %t.bn128.json --emit cuda | FileCheck %s --check-prefix=F8BN128
// RUN: %helionc compile %examples/scaled_mm.cpp --kernel scaled_mm_f8 --config %t.bn128.json --emit host | FileCheck %s --check-prefix=F8BN128HOST
// F8BN128: TMA_STORE && sizeof(T_p_out) >= 2 ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs
// F8BN128HOST: const bool tmaStore = sm90 && p_out.element_size() >= 2 && p_out.dim() == 2 &&
// fp8 operands of the tensor-core matmul (docs/gemm.md, "fp8 operands"): wgmma
// m64nNk32 e4m3/e5m2 on sm_90a with both operands K-major, the K block one 128-byte
// row of 128 elements; on sm_80 the 8-bit fragments are widened to f16 for mma.sync.
#include <helion/hl.h>

using helion::Tensor;

// The example: B as w[tn, tk].transpose(0, 1), the per-row scales in the epilogue.
// CUDA: tensor-core matmul: A = x [M, K], B = w [N, K]; epilogue tma_store (TMA_STORE = 1) or pairs
// CUDA: hd::to_compute(p_scale_x[(row__ < M__ ? row__ : M__ - 1) * stride_p_scale_x_0])
// CUDA: hd::to_compute(p_scale_w[(col__ < N__ ? col__ : N__ - 1) * stride_p_scale_w_0])
// CUDA: using G__ = hd::Gemm<T_p_x, T_p_out, 128, 256, 128 / int(sizeof(T_p_x)), 4, 2, true, true,
// CUDA: using G__ = hd::GemmSm80<T_p_x, 128, kTf32__ ? 128 : 256, 128 / int(sizeof(T_p_x)), 4, true>;
//
// E4M3: // scaled_mm_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 1> (sm_90a)
// E4M3-NOT: mma.sync
// E4M3-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// E4M3-NOT: wgmma.mma_async
// E5M2: // scaled_mm_kernel<hd::f8e5m2, hd::f8e5m2, float, float, hd::bf16, 1> (sm_90a)
// E5M2: wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2
// 128 x 128 with one consumer: 2 x 4 k32 steps of m64n128.
// C1: // scaled_mm_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 1> (sm_90a)
// C1-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
//
// sm_80: the sm80 kernel, f16 mma.sync on the widened fragments, no wgmma.
// SM80: // scaled_mm_kernel_sm80<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 0> (sm_80)
// SM80-NOT: wgmma
// SM80: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-NOT: wgmma

// 8-bit B as [K, N]: located at the operand when instantiated for 8-bit floats.
// KN: matmul-fp8.cpp:[[@LINE+10]]:32: error: hl::dot of f8e4m3 needs its second operand as w[tn, tk].transpose(0, 1) of a [N, K] tensor: the tensor cores read 8-bit operands K-major only
// MIXED: scaled_mm.cpp:21:17: error: both operands of a tensor-core hl::dot must have the same dtype, got f8e4m3 and bf16
// KNBF16: mm_f8_kn_kernel<hd::bf16, hd::bf16, hd::bf16, 1> (sm_90a
HELION_KERNEL Tensor mm_f8_kn(const Tensor& x, const Tensor& y) {
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
