// REQUIRES: frontend
// A block-scaled product (each 128-wide K block's product scaled by its row and column
// block scales before it is added, as fp8 GEMMs with per-block scales do) runs on the
// GEMM templates' K-scale mainloops: the recognizer records the scale's row and column
// factors, template-plan the scales' block (the K tile's 128), and the epilogue functor
// prints the factors as kscale_row / kscale_col for hd::Gemm and hd::GemmSm80.
// RUN: %helionc spec %s --kernel scaled128 | FileCheck %s --check-prefix=SPEC
// RUN: %helionc compile %s --kernel scaled128 --stop-after template-plan 2>&1 | FileCheck %s --check-prefix=IR
// RUN: %helionc compile %s --kernel scaled128 --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %s --kernel scaled128 --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 -o %t/90 | FileCheck %s --check-prefix=FITS90
// RUN: %helionc compile %s --kernel scaled128 --emit cubin --arch sm_80 --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 -o %t/80 | FileCheck %s --check-prefix=FITS80
// Blocks of one stage with 2 consumers alternate between two parts (the next block's
// wgmmas issued before a block's adds): ptxas keeps the wgmmas asynchronous (no C7514,
// which a branch between an issue and its wait inside the loop brought) and spills
// nothing; --nvrtc-log shows NVRTC's log (not on a cache hit: no cache here), and
// without it no log is printed.
// RUN: env HELIONC_NO_CACHE=1 HELIONC_NVRTC_OPTIONS=--ptxas-options=-v %helionc compile %s --kernel scaled128 --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 --nvrtc-log -o %t/ptxas 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7514
// RUN: env HELIONC_NO_CACHE=1 HELIONC_NVRTC_OPTIONS=--ptxas-options=-v %helionc compile %s --kernel scaled128 --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 -o %t/quiet 2>&1 | FileCheck %s --check-prefix=FITS90 --implicit-check-not=ptxas
// Blocks of 64 (two per 8-bit stage on sm90) and a per-element column factor:
// RUN: %helionc compile %s --kernel scaled64 --emit cuda | FileCheck %s --check-prefix=CUDA64
// RUN: %helionc compile %s --kernel scaled64 --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 -o %t/64 | FileCheck %s --check-prefix=FITS64
// A scale that reads both tm and tn is no row factor times a column factor: the general
// lowering takes it, which stages 8-bit operands as f32: 128-wide blocks fixed in the
// source need more than its 48 KB, an error of the instantiation that names the dot's line.
// RUN: %helionc spec %s --kernel scaled2d | FileCheck %s --check-prefix=SPEC2D
// RUN: not %helionc compile %s --kernel scaled2d --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,s=f32,out=bf16 -o %t/2d 2>&1 | FileCheck %s --check-prefix=BIG
// The factors through the K loop's lets, also in subscripts (`auto kb = tk.id()`):
// RUN: %helionc compile %s --kernel kb_let --emit cuda | FileCheck %s --check-prefix=KBLET
// A K tile the config may set is the scales' block: a power of two from 32 to 1024.
// RUN: echo '{"block_sizes": [128, 128, 16]}' > %t.bk.json
// RUN: not %helionc compile %s --kernel tunable_k --config %t.bk.json --emit cuda 2>&1 | FileCheck %s --check-prefix=BK
// RUN: %helionc spec %s --kernel tunable_k | FileCheck %s --check-prefix=SPECK
// 3 consumers (16 warps) take 192 rows, and 192 rows 3 consumers:
// RUN: echo '{"block_sizes": [128], "num_warps": 16}' > %t.c16.json
// RUN: not %helionc compile %s --kernel scaled128 --config %t.c16.json --emit cuda 2>&1 | FileCheck %s --check-prefix=C16
// RUN: echo '{"block_sizes": [192], "num_warps": 12}' > %t.c12.json
// RUN: not %helionc compile %s --kernel scaled128 --config %t.c12.json --emit cuda 2>&1 | FileCheck %s --check-prefix=C12
// C16: block_sizes[0]: expected 192 rows of 'tm' for the sm90 matmul with num_warps 16 (3 consumer warpgroups of 64 rows), got 128
// C12: block_sizes[0]: expected a multiple of 128 rows of 'tm' for the sm90 matmul with num_warps 12 (64 per consumer warpgroup), got 192
#include <helion/hl.h>

using helion::Tensor;

// SPEC: config spec of kernel 'scaled128' ({{.*}}): its dot runs the GEMM templates
// SPEC: num_warps {{.*}} 8 | 12 | 16; default 12
// SPEC: a product scaled per K block: tk is the scales' block{{.*}}num_warps 16 = 3 consumers with tm 192
// SPEC: {"block_sizes": [128], {{.*}}"num_warps": 12
// IR: matmul: a %x, b %w transposed, acc %acc.0, tiles [tm, tn], k loop tk, k-scale rows load %sx[%tm, %tk.id][:, newaxis] columns load %sw[%tn.id, %tk.id] (per column tile)
// IR: template: gemm sm90 128x128 stages 4 consumers 2 {{.*}}; k-scale block 128
// CUDA: static constexpr bool kKScale = true;
// CUDA-NEXT: static constexpr int kKScaleBlock = 128;
// CUDA-NEXT: static constexpr int kKScaleColBlock = 128;
// CUDA-NEXT: float kscale_row(int64 row__, int64 kb__) const {
// CUDA-NEXT: return float(hd::to_compute(p_sx[row__ * stride_p_sx_0 + int64(kb__) * stride_p_sx_1]));
// CUDA: float kscale_col(int64 col__, int64 kb__) const {
// CUDA-NEXT: return float(hd::to_compute(p_sw[int64((col__ / 128)) * stride_p_sw_0 + int64(kb__) * stride_p_sw_1]));
// FITS90: scaled128_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 1> (sm_90a
// PTXAS: note: NVRTC's log for kernel 'scaled128' (scaled128_kernel<hd::f8e4m3, {{.*}}, sm_90a):
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: scaled128_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 1> (sm_90a
// FITS80: scaled128_kernel_sm80<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 0> (sm_80
HELION_KERNEL Tensor scaled128(const Tensor& x, const Tensor& w, const Tensor& sx,
                               const Tensor& sw) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 128}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(128)))
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) *
                      sx[tm, tk.id()][hl::all, hl::newaxis] * sw[tn.id(), tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}

// CUDA64: static constexpr int kKScaleBlock = 64;
// CUDA64-NEXT: static constexpr int kKScaleColBlock = 1;
// CUDA64: return float(hd::to_compute(p_sw[col__ * stride_p_sw_0 + int64(kb__) * stride_p_sw_1]));
// FITS64: scaled64_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, 1> (sm_90a
HELION_KERNEL Tensor scaled64(const Tensor& x, const Tensor& w, const Tensor& sx,
                              const Tensor& sw) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 64}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(64)))
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) *
                      sx[tm, tk.id()][hl::all, hl::newaxis] * sw[tn, tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}

// SPEC2D: config spec of kernel 'scaled2d' ({{.*}}): its dots run the general hl::dot lowering
HELION_KERNEL Tensor scaled2d(const Tensor& x, const Tensor& w, const Tensor& s) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 128}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(128)))
      // BIG: static assertion failed with "helionc: the blocks of the general hl::dot at dot-block-scaled.cpp:[[@LINE+1]] need more than 48 KB of shared memory in these dtypes
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) * s[tm, tn];
    out[tm, tn] = acc;
  }
  return out;
}

// KBLET: return float(hd::to_compute(p_sx[row__ * stride_p_sx_0 + int64(kb__) * stride_p_sx_1]));
// KBLET: return float(hd::to_compute(p_sw[int64((col__ / 128)) * stride_p_sw_0 + int64(kb__) * stride_p_sw_1]));
HELION_KERNEL Tensor kb_let(const Tensor& x, const Tensor& w, const Tensor& sx,
                            const Tensor& sw) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 128}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(128))) {
      auto kb = tk.id();
      auto s = sx[tm, kb][hl::all, hl::newaxis] * sw[tn.id(), kb];
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) * s;
    }
    out[tm, tn] = acc;
  }
  return out;
}

// BK: block_sizes[2]: expected at least 32 (the minimum of 'tk' for the scale block of a product scaled per K block), got 16
// SPECK: [2] tk {{.*}}powers of two in [32, 1024]{{.*}}default 128
HELION_KERNEL Tensor tunable_k(const Tensor& x, const Tensor& w, const Tensor& s) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) * s[tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}
