// matmul, fp8 scaled_mm and attention (batched hl::dot) in ref mode against double
// references.
#include "examples/attention.cpp"
#include "examples/matmul.cpp"
#include "examples/scaled_mm.cpp"
#include "examples/scaled_mm_block.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {
const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};
} // namespace

TEST_CASE("example matmul matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 37, k = 71, n = 45;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, k}, dtype, rng);
    helion::Tensor y = reftest::randomTensor({k, n}, dtype, rng);
    std::vector<double> xs = values(x), ys = values(y), expected(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < n; ++j)
          expected[i * n + j] += xs[i * k + kk] * ys[kk * n + j];
    std::vector<double> first;
    for (int64_t bs : {16, 64, 7, 1}) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = matmul(x, y);
      REQUIRE(out.dtype() == dtype);
      REQUIRE(out.sizes() == std::vector<int64_t>{m, n});
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
      // The accumulator is rounded to f32 after each K tile: agreement to f32 rounding.
      if (first.empty())
        first = values(out);
      else
        reftest::requireClose(values(out), first, reftest::toleranceFor(dtype, 1e-5));
    }
  }
}

TEST_CASE("example matmul rejects mismatched inner dimensions", "[refmode][examples]") {
  helion::Tensor x = helion::zeros({4, 5}, DType::f32);
  helion::Tensor y = helion::zeros({6, 3}, DType::f32);
  REQUIRE_THROWS_WITH(matmul(x, y), Catch::Contains("matmul: inner dimensions differ"));
  REQUIRE_THROWS_WITH(matmul(helion::zeros({4}, DType::f32), y),
                      Catch::Contains("shape<2>() called on a tensor of rank 1"));
}

TEST_CASE("example scaled_mm matches a double reference of the dequantized operands",
          "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 29, k = 83, n = 37;
  for (DType dtype : {DType::f8e4m3, DType::f8e5m2}) {
    INFO("dtype " << reftest::name(dtype));
    // Operands spread over the 8-bit range (rounded to it by the stores), scales as
    // quant_fp8 makes them.
    helion::Tensor x = reftest::randomTensor({m, k}, dtype, rng, -400.0, 400.0);
    helion::Tensor w = reftest::randomTensor({n, k}, dtype, rng, -400.0, 400.0);
    helion::Tensor sx = reftest::randomTensor({m}, DType::f32, rng, 1e-4, 1e-2);
    helion::Tensor sw = reftest::randomTensor({n}, DType::f32, rng, 1e-4, 1e-2);
    std::vector<double> xs = values(x), ws = values(w), sxs = values(sx), sws = values(sw);
    std::vector<double> expected(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          dot += xs[i * k + kk] * ws[j * k + kk];
        expected[i * n + j] = dot * sxs[i] * sws[j];
      }
    for (int64_t bs : {16, 64, 7, 1}) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = scaled_mm(x, w, sx, sw);
      REQUIRE(out.dtype() == DType::bf16);
      REQUIRE(out.sizes() == std::vector<int64_t>{m, n});
      reftest::requireClose(values(out), expected, reftest::toleranceFor(DType::bf16));
    }
  }
  helion::Tensor x = helion::zeros({4, 8}, DType::f8e4m3);
  REQUIRE_THROWS_WITH(scaled_mm(x, helion::zeros({3, 7}, DType::f8e4m3),
                                helion::zeros({4}, DType::f32), helion::zeros({3}, DType::f32)),
                      Catch::Contains("scaled_mm: x and w must have the same K"));
  REQUIRE_THROWS_WITH(scaled_mm(x, helion::zeros({3, 8}, DType::f8e4m3),
                                helion::zeros({3}, DType::f32), helion::zeros({3}, DType::f32)),
                      Catch::Contains("scale_x must be [m]"));
}

TEST_CASE("example scaled_mm_f8 rounds the scaled product to f8e4m3", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 23, k = 70, n = 31;
  helion::Tensor x = reftest::randomTensor({m, k}, DType::f8e4m3, rng, -400.0, 400.0);
  helion::Tensor w = reftest::randomTensor({n, k}, DType::f8e4m3, rng, -400.0, 400.0);
  helion::Tensor sx = reftest::randomTensor({m}, DType::f32, rng, 1e-4, 1e-2);
  helion::Tensor sw = reftest::randomTensor({n}, DType::f32, rng, 1e-4, 1e-2);
  std::vector<double> xs = values(x), ws = values(w), sxs = values(sx), sws = values(sw);
  std::vector<double> expected(m * n, 0.0);
  double amax = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        dot += xs[i * k + kk] * ws[j * k + kk];
      expected[i * n + j] = dot * sxs[i] * sws[j];
      amax = std::max(amax, std::abs(expected[i * n + j]));
    }
  const float inv = static_cast<float>(448.0 / amax); // the largest output maps to 448
  for (double& e : expected)
    e *= inv;
  for (int64_t bs : {16, 64, 7}) {
    INFO("block size " << bs);
    helion::ref::ScopedBlockSize scoped(bs);
    helion::Tensor out = scaled_mm_f8(x, w, sx, sw, inv);
    REQUIRE(out.dtype() == DType::f8e4m3);
    REQUIRE(out.sizes() == std::vector<int64_t>{m, n});
    // One rounding to 3 mantissa bits: within 2^-4 relative (and the subnormal step).
    reftest::requireClose(values(out), expected, {0.0625, std::ldexp(1.0, -9)});
  }
}

TEST_CASE("example scaled_mm_block matches a double reference of the dequantized operands",
          "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Three K blocks and three column blocks of 128, the last ones partial.
  const int64_t m = 37, k = 300, n = 290, kb = (k + 127) / 128, nb = (n + 127) / 128;
  for (DType dtype : {DType::f8e4m3, DType::f8e5m2}) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, k}, dtype, rng, -400.0, 400.0);
    helion::Tensor w = reftest::randomTensor({n, k}, dtype, rng, -400.0, 400.0);
    helion::Tensor sx = reftest::randomTensor({m, kb}, DType::f32, rng, 1e-4, 1e-2);
    helion::Tensor sw = reftest::randomTensor({nb, kb}, DType::f32, rng, 1e-4, 1e-2);
    std::vector<double> xs = values(x), ws = values(w), sxs = values(sx), sws = values(sw);
    std::vector<double> expected(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t kk = 0; kk < k; ++kk)
          expected[i * n + j] += xs[i * k + kk] * sxs[i * kb + kk / 128] * ws[j * k + kk] *
                                 sws[(j / 128) * kb + kk / 128];
    for (int64_t bs : {16, 64, 7, 1}) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = scaled_mm_block(x, w, sx, sw);
      REQUIRE(out.dtype() == DType::bf16);
      REQUIRE(out.sizes() == std::vector<int64_t>{m, n});
      reftest::requireClose(values(out), expected, reftest::toleranceFor(DType::bf16));
    }
  }
  helion::Tensor x = helion::zeros({4, 256}, DType::f8e4m3);
  helion::Tensor w = helion::zeros({3, 256}, DType::f8e4m3);
  REQUIRE_THROWS_WITH(scaled_mm_block(x, w, helion::zeros({4, 1}, DType::f32),
                                      helion::zeros({1, 2}, DType::f32)),
                      Catch::Contains("scale_x must be [m, cdiv(k, 128)]"));
  REQUIRE_THROWS_WITH(scaled_mm_block(x, w, helion::zeros({4, 2}, DType::f32),
                                      helion::zeros({2, 2}, DType::f32)),
                      Catch::Contains("scale_w must be [cdiv(n, 128), cdiv(k, 128)]"));
}

TEST_CASE("example attention matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t bh = 3, m = 41, n = 53, d = 24;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor q = reftest::randomTensor({bh, m, d}, dtype, rng, -2.0, 2.0);
    helion::Tensor k = reftest::randomTensor({bh, n, d}, dtype, rng, -2.0, 2.0);
    helion::Tensor v = reftest::randomTensor({bh, n, d}, dtype, rng);
    std::vector<double> qs = values(q), ks = values(k), vs = values(v), expected(bh * m * d, 0.0);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    for (int64_t b = 0; b < bh; ++b) {
      for (int64_t i = 0; i < m; ++i) {
        std::vector<double> s(n);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          double dotv = 0;
          for (int64_t c = 0; c < d; ++c)
            dotv += qs[(b * m + i) * d + c] * ks[(b * n + j) * d + c];
          s[j] = dotv * scale;
          mx = std::max(mx, s[j]);
        }
        for (int64_t j = 0; j < n; ++j)
          sum += std::exp(s[j] - mx);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t c = 0; c < d; ++c)
            expected[(b * m + i) * d + c] += std::exp(s[j] - mx) / sum * vs[(b * n + j) * d + c];
      }
    }
    std::vector<double> first;
    for (int64_t bs : {16, 64, 7}) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = attention(q, k, v);
      REQUIRE(out.dtype() == dtype);
      REQUIRE(out.sizes() == q.sizes());
      // p is rounded to v's dtype before the second dot, as on the GPU.
      reftest::Tolerance tol = reftest::toleranceFor(dtype, 1e-5);
      reftest::requireClose(values(out), expected, {tol.rtol * 2, tol.atol * 2});
      if (first.empty())
        first = values(out);
      else
        reftest::requireClose(values(out), first, {tol.rtol * 2, tol.atol * 2});
    }
  }
}
