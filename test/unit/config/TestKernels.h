//===- TestKernels.h - Kernels built by hand with the IR builders ----------===//
#pragma once

#include "helion/IR/IR.h"

namespace helion::config::test {

/// softmax(x, out): `for tm in tile(m) { v = load x[tm, :]; store out[tm, :] = exp(v) }`,
/// one grid tile (bs0 "tm"), one reduction axis a0 = x.size(1). No axes when `withAxis`
/// is false (the kernel as the frontend leaves it, before infer-types).
ir::Kernel softmaxKernel(bool withAxis = true);

/// matmul(x, y, out): `for tm, tn { acc = 0; for tk { acc = dot(x[tm, tk], y[tk, tn], acc) };
/// store out[tm, tn] = acc }`: block sizes tm, tn, tk.
ir::Kernel matmulKernel();

/// scaled(x, y, out): the matmul with each K block's product scaled before it is added,
/// `acc = acc + dot(x[tm, tk], y[tk, tn]) * 2.0` (a product scaled per K block: the GEMM
/// templates' K-scale form, the constant a row factor).
ir::Kernel scaledMatmulKernel();

/// tiled(x, y, out): the matmul's loops without hl::dot (the generic emitter's):
/// `for tm, tn { acc = 0; for tk { acc = acc + x[tm, tk] * y[tk, tn] }; store out[tm, tn] =
/// acc }`: block sizes tm, tn, tk.
ir::Kernel tiledKernel();

/// softmax_two_pass with `block_m` fixed to 16 and `block_n` a register_block_size(16, 1024)
/// shared by two inner loops: `for tm { for tn { load x[tm, tn] } for tn2 { store out[tm, tn2] =
/// load x[tm, tn2] } }`.
ir::Kernel twoPassKernel();

} // namespace helion::config::test
