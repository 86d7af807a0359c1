// Dropout with counter-based random numbers: each element of x is kept with
// probability 1 - p and scaled by 1 / (1 - p), else zeroed. The random number of
// element (i, j) is hl::rand(seed, i * n + j) (Philox4x32-10; a row's consecutive offsets
// share one evaluation per four), so
// the same seed gives the same mask in ref mode, on the GPU, and under any block sizes.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor dropout(const Tensor& x, float p, int64_t seed) {
  auto [m, n] = x.shape<2>();
  HELION_CHECK(p >= 0 && p < 1, "dropout: p must be in [0, 1), got {}", p);
  Tensor out = helion::empty_like(x);
  const float scale = 1.0f / (1.0f - p);
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto offsets = tm.index()[hl::all, hl::newaxis] * n + tn.index()[hl::newaxis, hl::all];
    auto keep = hl::rand(seed, offsets) > p;
    out[tm, tn] = hl::where(keep, x[tm, tn] * scale, 0.0f);
  }
  return out;
}
