// REQUIRES: frontend
// RUN: %helionc compile %examples/attention_causal.cpp --emit cuda | FileCheck %s --check-prefix=CAUSAL
// RUN: %helionc compile %examples/attention_causal.cpp --emit host | FileCheck %s --check-prefix=HOST
// RUN: %helionc compile %s --kernel window --emit cuda | FileCheck %s --check-prefix=WINDOW
// RUN: %helionc compile %s --kernel strict --emit cuda | FileCheck %s --check-prefix=STRICT
// RUN: %helionc compile %s --kernel scaled --emit cuda | FileCheck %s --check-prefix=SCALED
// RUN: %helionc compile %s --kernel capped --emit cuda | FileCheck %s --check-prefix=CAPPED
// RUN: %helionc compile %s --kernel by_row --emit cuda | FileCheck %s --check-prefix=BYROW
// RUN: not %helionc compile %s --kernel lse_of_acc --emit cuda 2>&1 | FileCheck %s --check-prefix=LSEACC
// RUN: not %helionc compile %s --kernel batch_index --emit cuda 2>&1 | FileCheck %s --check-prefix=BATCH
// Scores that use the query and key indices (RecognizeAttentionKeyLoop.cpp): the score functor
// takes (x, row, col); where(tm.index() >= tn.index(), s, -inf) is the causal mask,
// which lets the device library stop at the diagonal's key block (kCausal). A store
// to lse[tb, tm] after the key loop is a per-row result: written once per row, from
// li and mi only. A score dot * f (f free of the dot and the indices; under the causal
// mask, its unmasked form) is linear (kLinear, factor()): the sm90 kernel folds f into the
// exponent when f > 0.
#include <helion/hl.h>

#include <utility>

using helion::Tensor;

// CAUSAL: struct attention_causal_score {
// CAUSAL: static constexpr bool kCausal = true;
// CAUSAL-NEXT: __device__ __forceinline__ float operator()(float x__, int64 row__, int64 col__) const {
// CAUSAL-NEXT: return float(((row__ >= col__) ? float((float(x__) * float(p_scale))) : float((-__int_as_float(0x7f800000)))));
// CAUSAL-NEXT: }
// CAUSAL-NEXT: static constexpr bool kLinear = true;
// CAUSAL-NEXT: __device__ __forceinline__ float factor() const { return float(p_scale); }
// CAUSAL-NEXT: __device__ __forceinline__ float unmasked(float x__, int64 row__, int64 col__) const {
// CAUSAL-NEXT: return float((float(x__) * float(p_scale)));
// CAUSAL: struct attention_causal_epilogue {
// CAUSAL: T_p_lse* __restrict__ p_lse;
// CAUSAL-NEXT: int64 stride_p_lse_0;
// CAUSAL-NEXT: int64 stride_p_lse_1;
// CAUSAL: if (col__ == 0)
// CAUSAL-NEXT: rows(b__, row__, l__, m__);
// CAUSAL: void rows(int64 b__, int64 row__, float l__, float m__) const {
// CAUSAL: p_lse[b__ * stride_p_lse_0 + row__ * stride_p_lse_1] = hd::from_compute<T_p_lse>((float(v0) + float(hd::log(float(v1)))));

// The launcher checks the per-row output as [b, m].
// HOST: HELION_CHECK(p_out.device().type == helion::DeviceType::CUDA && p_out.dim() == 3 && p_out.size(0) >= B && p_out.size(1) >= M && p_out.size(2) >= D,
// HOST-NEXT: HELION_CHECK(p_lse.device().type == helion::DeviceType::CUDA && p_lse.dim() == 2 && p_lse.size(0) >= B && p_lse.size(1) >= M, "attention_causal: tensor 'lse' must be a 2-D CUDA tensor of at least [b, m]");

#define ATTENTION_LOOP(SCORE)                                                                  \
  auto [bh, m, dim] = q.shape<3>();                                                            \
  int64_t d = hl::specialize(dim);                                                             \
  auto n = k.size(1);                                                                          \
  Tensor out = helion::empty_like(q);                                                          \
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {                  \
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);                                          \
    auto li = hl::zeros({tb, tm}, hl::f32);                                                    \
    auto acc = hl::zeros({tb, tm, d}, hl::f32);                                                \
    for (auto tn : hl::tile(n)) {                                                              \
      auto qk = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));               \
      auto rows = tm.index()[hl::newaxis, hl::all, hl::newaxis];                               \
      auto cols = tn.index()[hl::newaxis, hl::newaxis, hl::all];                               \
      auto s = SCORE;                                                                          \
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));                                          \
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);                            \
      auto alpha = hl::exp(mi - mi_next);                                                      \
      li = li * alpha + hl::sum(p, 2);                                                         \
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha[hl::all, hl::all, hl::newaxis]); \
      mi = mi_next;                                                                            \
    }                                                                                          \
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];                            \
  }                                                                                            \
  return out;

// A sliding window: uses both indices, is not the causal mask (every key block is read).
// WINDOW: static constexpr bool kCausal = false;
// WINDOW-NEXT: __device__ __forceinline__ float operator()(float x__, int64 row__, int64 col__) const {
// WINDOW-NEXT: return float(((bool(((int64(row__) - int64(col__)) < int64(256))) & bool((row__ >= col__))) ? float(x__) : float((-__int_as_float(0x7f800000)))));
HELION_KERNEL Tensor window(const Tensor& q, const Tensor& k, const Tensor& v) {
  ATTENTION_LOOP(hl::where((rows - cols < 256) & (rows >= cols), qk, -INFINITY))
}

// row > col hides the diagonal too (row 0 sees no key): not the causal mask either.
// STRICT: static constexpr bool kCausal = false;
// STRICT: static constexpr bool kLinear = false;
// STRICT-NOT: factor()
HELION_KERNEL Tensor strict(const Tensor& q, const Tensor& k, const Tensor& v) {
  ATTENTION_LOOP(hl::where(rows > cols, qk, -INFINITY))
}

// A constant scale, on either side of the product, is a linear score.
// SCALED: static constexpr bool kCausal = false;
// SCALED: static constexpr bool kLinear = true;
// SCALED-NEXT: __device__ __forceinline__ float factor() const { return float(0.125f); }
HELION_KERNEL Tensor scaled(const Tensor& q, const Tensor& k, const Tensor& v) {
  ATTENTION_LOOP((0.5 * 0.25) * qk)
}

// Soft-capping is not linear in the product.
// CAPPED: static constexpr bool kLinear = false;
HELION_KERNEL Tensor capped(const Tensor& q, const Tensor& k, const Tensor& v) {
  ATTENTION_LOOP(hl::tanh(qk * 0.02) * 50.0)
}

// A factor that reads a tile index is not a scalar.
// BYROW: static constexpr bool kLinear = false;
HELION_KERNEL Tensor by_row(const Tensor& q, const Tensor& k, const Tensor& v) {
  ATTENTION_LOOP(qk * rows)
}

// A per-row result is pointwise in li and mi (acc is [tb, tm, d]; a reduction of it is not
// lowered).
// LSEACC: :[[@LINE+21]]:23: error: only pointwise operations on acc, li, mi and scalars may follow the key loop of flash attention
HELION_KERNEL std::pair<Tensor, Tensor> lse_of_acc(const Tensor& q, const Tensor& k, const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  Tensor lse = helion::empty({bh, m}, hl::f32);
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], k[tb, tn, hl::all].transpose(1, 2));
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc * alpha[hl::all, hl::all, hl::newaxis]);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
    lse[tb, tm] = hl::sum(acc, 2);
  }
  return {out, lse};
}

// BATCH: error: the attention score may use the indices of tm (query rows) and tn (keys) only
HELION_KERNEL Tensor batch_index(const Tensor& q, const Tensor& k, const Tensor& v) {
  ATTENTION_LOOP(hl::where(tb.index()[hl::all, hl::newaxis, hl::newaxis] > 0, qk, -INFINITY))
}
