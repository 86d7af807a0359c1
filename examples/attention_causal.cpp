// Causal attention forward with the log-sum-exp of each row (what a backward pass
// needs): out = softmax(q k^T * scale, masked to keys <= the query row) v, and
// lse = log(sum_j exp(s[i, j])) per query row. q, k, v: [batch*heads, seq, head_dim];
// lse: [batch*heads, seq] in f32.
#include <helion/hl.h>

#include <utility>

using helion::Tensor;

HELION_KERNEL std::pair<Tensor, Tensor> attention_causal(const Tensor& q, const Tensor& k,
                                                         const Tensor& v) {
  auto [bh, m, dim] = q.shape<3>();
  int64_t d = hl::specialize(dim);
  auto n = k.size(1);
  Tensor out = helion::empty_like(q);
  Tensor lse = helion::empty({bh, m}, hl::f32, q.device());  // where q is: CPU or GPU
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {
    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);
    auto li = hl::zeros({tb, tm}, hl::f32);
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    auto qt = q[tb, tm, hl::all];
    for (auto tn : hl::tile(n)) {
      auto qk = hl::dot(qt, k[tb, tn, hl::all].transpose(1, 2)) * scale;  // [tb, tm, tn]
      // Key j is visible to query row i when j <= i.
      auto visible = tm.index()[hl::newaxis, hl::all, hl::newaxis] >=
                     tn.index()[hl::newaxis, hl::newaxis, hl::all];
      auto s = hl::where(visible, qk, -INFINITY);
      auto mi_next = hl::maximum(mi, hl::amax(s, 2));
      auto p = hl::exp(s - mi_next[hl::all, hl::all, hl::newaxis]);
      auto alpha = hl::exp(mi - mi_next);
      li = li * alpha + hl::sum(p, 2);
      acc = acc * alpha[hl::all, hl::all, hl::newaxis];
      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], acc);
      mi = mi_next;
    }
    out[tb, tm, hl::all] = acc / li[hl::all, hl::all, hl::newaxis];
    lse[tb, tm] = mi + hl::log(li);
  }
  return {out, lse};
}
