// REQUIRES: frontend
// A block-scaled product (each 128-wide K block's product scaled by its row and column
// block scales before it is added, as fp8 GEMMs with per-block scales do) is not the
// templates' accumulate form: the general lowering takes it. Its block sizes are the
// source's (128 x 128 operand blocks), which the general lowering stages as f32 for
// 8-bit operands: more than its 48 KB, an error of the instantiation that names the dot's
// line. Blocks of 64 fit.
// RUN: %helionc spec %s --kernel scaled128 | FileCheck %s --check-prefix=SPEC
// RUN: not %helionc compile %s --kernel scaled128 --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 -o %t 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: rm -rf %t && %helionc compile %s --kernel scaled64 --emit cubin --arch sm_90a --dtype x=f8e4m3,w=f8e4m3,sx=f32,sw=f32,out=bf16 -o %t | FileCheck %s --check-prefix=FITS
#include <helion/hl.h>

using helion::Tensor;

// SPEC: config spec of kernel 'scaled128' ({{.*}}): its dots run the general hl::dot lowering
HELION_KERNEL Tensor scaled128(const Tensor& x, const Tensor& w, const Tensor& sx,
                               const Tensor& sw) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 128}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(128)))
      // BIG: static assertion failed with "helionc: the blocks of the general hl::dot at dot-block-scaled.cpp:[[@LINE+1]] need more than 48 KB of shared memory in these dtypes
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) *
                      sx[tm, tk.id()][hl::all, hl::newaxis] * sw[tn.id(), tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}

// FITS: scaled64_kernel<hd::f8e4m3, hd::f8e4m3, float, float, hd::bf16, {{[0-9]+}}, 0> (sm_90a
HELION_KERNEL Tensor scaled64(const Tensor& x, const Tensor& w, const Tensor& sx,
                              const Tensor& sw) {
  auto [m, k] = x.shape<2>();
  auto [n, k2] = w.shape<2>();
  Tensor out = helion::empty({m, n}, hl::bf16, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({hl::tunable, 64}))) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(64)))
      acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) *
                      sx[tm, tk.id()][hl::all, hl::newaxis] * sw[tn.id(), tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}
