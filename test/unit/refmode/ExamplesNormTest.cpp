// rms_norm, layer_norm and cross_entropy in ref mode against double references.
#include "examples/cross_entropy.cpp"
#include "examples/layer_norm.cpp"
#include "examples/rms_norm.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {
const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};
const int64_t kBlockSizes[] = {16, 64, 7, 1};
} // namespace

TEST_CASE("example rms_norm matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 67, n = 259;
  const double eps = 1e-5;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng, -2.0, 2.0);
    helion::Tensor w = reftest::randomTensor({n}, dtype, rng, 0.5, 1.5);
    std::vector<double> xs = values(x), ws = values(w), expected(xs.size());
    for (int64_t i = 0; i < m; ++i) {
      double ms = 0;
      for (int64_t j = 0; j < n; ++j)
        ms += xs[i * n + j] * xs[i * n + j];
      double inv = 1.0 / std::sqrt(ms / n + eps);
      for (int64_t j = 0; j < n; ++j)
        expected[i * n + j] = xs[i * n + j] * inv * ws[j];
    }
    std::vector<double> first;
    for (int64_t bs : kBlockSizes) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = rms_norm(x, w, eps);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype));
      if (first.empty())
        first = values(out);
      else
        reftest::requireIdentical(values(out), first);
    }
  }
}

TEST_CASE("example layer_norm matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 53, n = 199;
  const double eps = 1e-5;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng, -3.0, 5.0);
    helion::Tensor w = reftest::randomTensor({n}, dtype, rng, 0.5, 1.5);
    helion::Tensor b = reftest::randomTensor({n}, dtype, rng, -0.5, 0.5);
    std::vector<double> xs = values(x), ws = values(w), bs_ = values(b), expected(xs.size());
    for (int64_t i = 0; i < m; ++i) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < n; ++j)
        mean += xs[i * n + j];
      mean /= n;
      for (int64_t j = 0; j < n; ++j)
        var += (xs[i * n + j] - mean) * (xs[i * n + j] - mean);
      var /= n;
      for (int64_t j = 0; j < n; ++j)
        expected[i * n + j] = (xs[i * n + j] - mean) / std::sqrt(var + eps) * ws[j] + bs_[j];
    }
    std::vector<double> first;
    for (int64_t bs : kBlockSizes) {
      INFO("block size " << bs);
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = layer_norm(x, w, b, eps);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype));
      if (first.empty())
        first = values(out);
      else
        reftest::requireIdentical(values(out), first);
    }
  }
}

TEST_CASE("example layer_norm rejects a bad weight", "[refmode][examples]") {
  helion::Tensor x = helion::zeros({4, 8}, DType::f32);
  helion::Tensor w = helion::zeros({7}, DType::f32);
  REQUIRE_THROWS_WITH(layer_norm(x, w, w, 1e-5), Catch::Contains("layer_norm: bad weight or bias"));
}

TEST_CASE("example cross_entropy matches a double reference for i64 and i32 labels",
          "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t n = 91, v = 517;
  for (DType dtype : kFloatDTypes) {
    for (DType labelDType : {DType::i64, DType::i32}) {
      INFO("dtype " << reftest::name(dtype) << " labels " << reftest::name(labelDType));
      helion::Tensor logits = reftest::randomTensor({n, v}, dtype, rng, -6.0, 6.0);
      helion::Tensor labels = reftest::randomIndices({n}, v, labelDType, rng);
      std::vector<double> xs = values(logits), ls = values(labels), expected(n);
      for (int64_t i = 0; i < n; ++i) {
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < v; ++j)
          mx = std::max(mx, xs[i * v + j]);
        for (int64_t j = 0; j < v; ++j)
          sum += std::exp(xs[i * v + j] - mx);
        expected[i] = mx + std::log(sum) - xs[i * v + static_cast<int64_t>(ls[i])];
      }
      std::vector<double> first;
      for (int64_t bs : kBlockSizes) {
        INFO("block size " << bs);
        helion::ref::ScopedBlockSize scoped(bs);
        helion::Tensor out = cross_entropy(logits, labels);
        REQUIRE(out.dtype() == DType::f32);  // the kernel computes the loss in f32
        reftest::requireClose(values(out), expected, {1e-5, 1e-5});
        if (first.empty())
          first = values(out);
        else
          reftest::requireIdentical(values(out), first);
      }
    }
  }
}

TEST_CASE("example cross_entropy rejects an out-of-range label", "[refmode][examples]") {
  helion::Tensor logits = helion::zeros({3, 5}, DType::f32);
  helion::Tensor labels = helion::zeros({3}, DType::i64);
  labels.data_ptr<int64_t>()[1] = 5;
  REQUIRE_THROWS_WITH(cross_entropy(logits, labels),
                      Catch::Contains("index 5 is out of bounds for dimension 1 of size 5"));
  REQUIRE_THROWS_WITH(cross_entropy(logits, helion::zeros({4}, DType::i64)),
                      Catch::Contains("one label per row"));
}
