// Causal attention with the log-sum-exp output in ref mode against a double reference.
#include "examples/attention_causal.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

TEST_CASE("example attention_causal matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // n > m: rows see keys 0..i only, the keys past m are never visible.
  const int64_t bh = 2, m = 37, n = 45, d = 16;
  for (DType dtype : {DType::f32, DType::bf16}) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor q = reftest::randomTensor({bh, m, d}, dtype, rng, -2.0, 2.0);
    helion::Tensor k = reftest::randomTensor({bh, n, d}, dtype, rng, -2.0, 2.0);
    helion::Tensor v = reftest::randomTensor({bh, n, d}, dtype, rng);
    std::vector<double> qs = values(q), ks = values(k), vs = values(v);
    std::vector<double> expected(bh * m * d, 0.0), expectedLse(bh * m);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    for (int64_t b = 0; b < bh; ++b)
      for (int64_t i = 0; i < m; ++i) {
        std::vector<double> s(i + 1);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double dotv = 0;
          for (int64_t c = 0; c < d; ++c)
            dotv += qs[(b * m + i) * d + c] * ks[(b * n + j) * d + c];
          s[j] = dotv * scale;
          mx = std::max(mx, s[j]);
        }
        for (int64_t j = 0; j <= i; ++j)
          sum += std::exp(s[j] - mx);
        expectedLse[b * m + i] = mx + std::log(sum);
        for (int64_t j = 0; j <= i; ++j)
          for (int64_t c = 0; c < d; ++c)
            expected[(b * m + i) * d + c] += std::exp(s[j] - mx) / sum * vs[(b * n + j) * d + c];
      }
    for (int64_t bs : {16, 7, 64}) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      auto [out, lse] = attention_causal(q, k, v);
      REQUIRE(out.dtype() == dtype);
      REQUIRE(out.sizes() == q.sizes());
      REQUIRE(lse.dtype() == DType::f32);
      REQUIRE(lse.sizes() == std::vector<int64_t>{bh, m});
      reftest::Tolerance tol = reftest::toleranceFor(dtype, 1e-5);
      reftest::requireClose(values(out), expected, {tol.rtol * 2, tol.atol * 2});
      reftest::requireClose(values(lse), expectedLse, {1e-4, 1e-4});
    }
  }
}
