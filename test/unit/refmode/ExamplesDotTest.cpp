// bmm (batched hl::dot on the matmul template), matmul_bias_relu (a constant
// tile in the epilogue) and dot_generic (chained dots, the general lowering) in
// ref mode against double references.
#include "examples/bmm.cpp"
#include "examples/dot_generic.cpp"
#include "examples/matmul_bias_relu.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {
const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};
} // namespace

TEST_CASE("example bmm matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t b = 3, m = 21, k = 37, n = 19;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({b, m, k}, dtype, rng);
    helion::Tensor y = reftest::randomTensor({b, k, n}, dtype, rng);
    std::vector<double> xs = values(x), ys = values(y), expected(b * m * n, 0.0);
    for (int64_t p = 0; p < b; ++p)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < n; ++j)
            expected[(p * m + i) * n + j] += xs[(p * m + i) * k + kk] * ys[(p * k + kk) * n + j];
    for (int64_t bs : {16, 7, 1}) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = bmm(x, y);
      REQUIRE(out.dtype() == dtype);
      REQUIRE(out.sizes() == std::vector<int64_t>{b, m, n});
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
    }
  }
}

TEST_CASE("example bmm rejects mismatched shapes", "[refmode][examples]") {
  helion::Tensor x = helion::zeros({2, 4, 5}, DType::f32);
  REQUIRE_THROWS_WITH(bmm(x, helion::zeros({3, 5, 2}, DType::f32)),
                      Catch::Contains("bmm: batch sizes differ"));
  REQUIRE_THROWS_WITH(bmm(x, helion::zeros({2, 6, 2}, DType::f32)),
                      Catch::Contains("bmm: inner dimensions differ"));
}

TEST_CASE("example matmul_bias_relu matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 29, k = 40, n = 33;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, k}, dtype, rng);
    helion::Tensor y = reftest::randomTensor({k, n}, dtype, rng);
    helion::Tensor bias = reftest::randomTensor({n}, dtype, rng);
    std::vector<double> xs = values(x), ys = values(y), bs = values(bias), expected(m * n, 0.0);
    int negatives = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double v = bs[j];
        for (int64_t kk = 0; kk < k; ++kk)
          v += xs[i * k + kk] * ys[kk * n + j];
        negatives += v < 0;
        expected[i * n + j] = std::max(v, 0.0);
      }
    REQUIRE(negatives > 0); // the relu must matter for the test to mean anything
    for (int64_t block : {16, 5}) {
      INFO("block size " << block);
      helion::ref::ScopedBlockSize scoped(block);
      helion::Tensor out = matmul_bias_relu(x, y, bias);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
    }
  }
}

TEST_CASE("example mlp_relu (chained dots) matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 23, k = 30, h = 21, n = 17;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, k}, dtype, rng);
    helion::Tensor w1 = reftest::randomTensor({k, h}, dtype, rng);
    helion::Tensor w2 = reftest::randomTensor({h, n}, dtype, rng);
    std::vector<double> xs = values(x), w1s = values(w1), w2s = values(w2);
    std::vector<double> expected(m * n, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < h; ++j) {
        double v = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          v += xs[i * k + kk] * w1s[kk * h + j];
        // The activation is rounded to x's dtype before the second dot, as the kernel does.
        double act = helion::detail::roundToDType(dtype, std::max(v, 0.0));
        for (int64_t c = 0; c < n; ++c)
          expected[i * n + c] += act * w2s[j * n + c];
      }
    for (int64_t block : {16, 8, 5}) {
      INFO("block size " << block);
      helion::ref::ScopedBlockSize scoped(block);
      helion::Tensor out = mlp_relu(x, w1, w2);
      REQUIRE(out.dtype() == dtype);
      REQUIRE(out.sizes() == std::vector<int64_t>{m, n});
      // The activation's rounding can flip with the f32 sum's order: a few ulps of dtype.
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
    }
  }
}
