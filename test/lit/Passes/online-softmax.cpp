// REQUIRES: frontend
// RUN: echo '{"block_sizes": [1], "reduction_loops": [2048], "num_warps": 8}' > %t.json
// RUN: %helionc compile %s --kernel softmax_lets --config %t.json --stop-after online-softmax | FileCheck %s
// RUN: %helionc compile %s --kernel softmax_lets --config %t.json --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: %helionc compile %s --kernel softmax_inline --config %t.json --stop-after online-softmax | FileCheck %s --check-prefix=INLINE
// RUN: %helionc compile %s --kernel softmax_lets --stop-after online-softmax | FileCheck %s --check-prefix=PERSISTENT
// RUN: %helionc compile %s --kernel max_then_other --config %t.json --stop-after online-softmax | FileCheck %s --check-prefix=OTHER
// Over a looped reduction axis, online-softmax pairs `amax(x)` with a later
// `sum(exp(x - max))` (through the lets between them): the emitter computes both in one
// pass over the chunks with a running maximum (EmitReduce.cpp), so x is read twice
// (the fused pass and the store's) instead of three times.
#include <helion/hl.h>

using helion::Tensor;

// CHECK: let online(%[[S:_t0.[0-9]+]]) %amax.1 : dtype(x)[tm, 1] = amax(%values.0, dim=1, keepdim)
// CHECK: let fused %[[S]] : dtype(x)[tm, 1] = sum(%e.2, dim=1, keepdim)
// CUDA: hd::compute_t<T_p_x> cm = OpMax::identity<hd::compute_t<T_p_x>>();
// Persistent rows (no reduction_loops) keep the two reductions.
// PERSISTENT-NOT: online(
// PERSISTENT-NOT: fused
HELION_KERNEL Tensor softmax_lets(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    auto values = x[tm, hl::all];
    auto amax = hl::amax(values, 1, /*keepdim=*/true);
    auto e = hl::exp(values - amax);
    out[tm, hl::all] = e / hl::sum(e, 1, /*keepdim=*/true);
  }
  return out;
}

// INLINE: let online(%[[S:_t[0-9]+.[0-9]+]]) %mx.1 : f32[tm] = amax(%values.0, dim=1)
// INLINE: let fused %[[S]] : f32[tm] = sum(exp(sub(%values.0, %mx.1[:, newaxis])), dim=1)
HELION_KERNEL Tensor softmax_inline(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto values = x[tm, hl::all].to(hl::f32);
    auto mx = hl::amax(values, 1);
    out[tm] = mx + hl::log(hl::sum(hl::exp(values - mx[hl::all, hl::newaxis]), 1));
  }
  return out;
}

// A sum of something else is not a partner.
// OTHER-NOT: online(
// OTHER-NOT: fused
HELION_KERNEL Tensor max_then_other(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto values = x[tm, hl::all].to(hl::f32);
    auto mx = hl::amax(values, 1);
    out[tm] = hl::sum(hl::exp(values - 1.0f), 1) - mx;
  }
  return out;
}
