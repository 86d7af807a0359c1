// add, sum_rows, softmax and softmax_two_pass in ref mode against double references,
// for f32/f16/bf16, under several block sizes (shapes never multiples of them).
#include "examples/add.cpp"
#include "examples/softmax.cpp"
#include "examples/sum.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {

const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};
const int64_t kBlockSizes[] = {16, 64, 7, 1};

std::vector<double> softmaxReference(const std::vector<double>& x, int64_t m, int64_t n) {
  std::vector<double> out(x.size());
  for (int64_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j)
      mx = std::max(mx, x[i * n + j]);
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(x[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j)
      out[i * n + j] = std::exp(x[i * n + j] - mx) / sum;
  }
  return out;
}

} // namespace

TEST_CASE("example add matches a double reference for every rank and dtype", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::vector<int64_t>> shapes = {{1000}, {37, 129}, {3, 17, 33}};
  for (DType dtype : kFloatDTypes) {
    for (const auto& shape : shapes) {
      INFO("dtype " << reftest::name(dtype) << " shape " << helion::detail::toString(shape));
      helion::Tensor x = reftest::randomTensor(shape, dtype, rng);
      helion::Tensor y = reftest::randomTensor(shape, dtype, rng);
      std::vector<double> xs = values(x), ys = values(y), expected(xs.size());
      for (size_t i = 0; i < xs.size(); ++i)
        expected[i] = xs[i] + ys[i];
      std::vector<double> first;
      for (int64_t bs : {16, 64, 7}) {
        INFO("block size " << bs);
        helion::ref::ScopedBlockSize scoped(bs);
        helion::Tensor out = add(x, y);
        REQUIRE(out.dtype() == dtype);
        REQUIRE(out.sizes() == shape);
        reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-7));
        if (first.empty())
          first = values(out);
        else
          reftest::requireIdentical(values(out), first);
      }
    }
  }
}

TEST_CASE("example add rejects different shapes", "[refmode][examples]") {
  helion::Tensor x = helion::zeros({3, 4}, DType::f32);
  helion::Tensor y = helion::zeros({4, 3}, DType::f32);
  REQUIRE_THROWS_WITH(add(x, y), Catch::Contains("add: shapes differ"));
}

TEST_CASE("example sum_rows matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 77, n = 301;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng);
    std::vector<double> xs = values(x), expected(m, 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        expected[i] += xs[i * n + j];
    std::vector<double> first;
    for (int64_t bs : kBlockSizes) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = sum_rows(x);
      REQUIRE(out.sizes() == std::vector<int64_t>{m});
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-6));
      if (first.empty())
        first = values(out);
      else
        reftest::requireIdentical(values(out), first);
    }
  }
}

TEST_CASE("example softmax matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 123, n = 777;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng, -4.0, 4.0);
    std::vector<double> expected = softmaxReference(values(x), m, n);
    std::vector<double> first;
    for (int64_t bs : kBlockSizes) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = softmax(x);
      REQUIRE(out.dtype() == dtype);
      reftest::Tolerance tol = reftest::toleranceFor(dtype);
      reftest::requireClose(values(out), expected, {tol.rtol, tol.atol * 1e-2});
      if (first.empty())
        first = values(out);
      else
        reftest::requireIdentical(values(out), first);
    }
  }
}

TEST_CASE("example softmax_two_pass matches softmax and a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 45, n = 333;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng, -4.0, 4.0);
    std::vector<double> expected = softmaxReference(values(x), m, n);
    std::vector<double> first;
    for (int64_t bs : kBlockSizes) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = softmax_two_pass(x);
      reftest::Tolerance tol = reftest::toleranceFor(dtype);
      reftest::requireClose(values(out), expected, {tol.rtol, tol.atol * 1e-2});
      // The online pass rounds its running sum per column tile, so block sizes agree
      // to f32 rounding (and to one output ulp for f16/bf16), not bitwise.
      if (first.empty())
        first = values(out);
      else
        reftest::requireClose(values(out), first, reftest::toleranceFor(dtype, 1e-6));
    }
  }
}
