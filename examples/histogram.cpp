// Atomics: hl::atomic_add accumulates into tensor elements that several programs (or
// several elements of one block) hit.
//   histogram:   counts[b] += 1 for each x that falls in bin b of [lo, hi) (outside: the
//                first or last bin), i32 counts
//   scatter_add: out[index[i], :] += src[i, :] (torch's index_add_ along dim 0), in f32
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor histogram(const Tensor& x, int64_t bins, double lo, double hi) {
  HELION_CHECK(bins > 0 && hi > lo, "histogram: need bins > 0 and hi > lo");
  Tensor counts = helion::zeros({bins}, hl::i32, x.device());
  const double scale = bins / (hi - lo);  // host code: a scalar the device loop reads
  for (auto tile : hl::tile(x.sizes())) {
    auto bin = ((x[tile].to(hl::f32) - lo) * scale).to(hl::i64);
    bin = hl::minimum(hl::maximum(bin, 0), bins - 1);
    hl::atomic_add(counts[bin], 1);
  }
  return counts;
}

HELION_KERNEL Tensor scatter_add(const Tensor& src, const Tensor& index, int64_t rows) {
  auto [n, d] = src.shape<2>();
  HELION_CHECK(index.dim() == 1 && index.size(0) == n, "scatter_add: one index per row");
  Tensor out = helion::zeros({rows, d}, hl::f32, src.device());
  for (auto [tn, td] : hl::tile({n, d})) {
    auto rows_of = index[tn];
    hl::atomic_add(out, {rows_of[hl::all, hl::newaxis], td.index()[hl::newaxis, hl::all]},
                   src[tn, td].to(hl::f32));
  }
  return out;
}
