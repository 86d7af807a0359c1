// The language-feature examples in ref mode against double (or exact integer)
// references: a user helper (gelu_helper), the math functions (pointwise_math), the
// integer operators (int_hash), argmax/argmin (argmax), atomics (histogram) and fp8
// tensors (quant_fp8), under several block sizes.
#include "examples/argmax.cpp"
#include "examples/gelu_helper.cpp"
#include "examples/histogram.cpp"
#include "examples/int_hash.cpp"
#include "examples/pointwise_math.cpp"
#include "examples/quant_fp8.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {

const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};

double geluRef(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }

double mathMixRef(double v) {
  double a = std::fabs(v);
  return std::sin(v) * std::cos(v) + std::erf(v) + std::log1p(a) + std::pow(a, 1.5) +
         std::floor(v * 4) - std::ceil(v) + std::nearbyint(v * 2) + std::exp2(-a) +
         std::log2(a + 1);
}

/// Signed integers in [lo, hi) stored as `dtype`.
helion::Tensor randomInts(const std::vector<int64_t>& sizes, int64_t lo, int64_t hi, DType dtype,
                          std::mt19937_64& rng) {
  helion::Tensor t = helion::empty(sizes, dtype);
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  for (int64_t k = 0; k < t.numel(); ++k)
    helion::detail::storeInt(p + k * t.element_size(), dtype, dist(rng));
  return t;
}

} // namespace

TEST_CASE("example gelu_mul (a user helper) matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({37, 129}, dtype, rng, -4, 4);
    helion::Tensor y = reftest::randomTensor({37, 129}, dtype, rng, -4, 4);
    std::vector<double> xs = values(x), ys = values(y), expected(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      expected[i] = geluRef(xs[i]) * geluRef(ys[i]);
    for (int64_t bs : {16, 7, 1}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = gelu_mul(x, y);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
    }
  }
}

TEST_CASE("example math_mix matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({1001}, dtype, rng, -3, 3);
    std::vector<double> xs = values(x), expected(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
      expected[i] = mathMixRef(xs[i]);
    for (int64_t bs : {64, 7}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = math_mix(x);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 2e-5));
    }
  }
}

TEST_CASE("hl::round rounds half to even, floor/ceil/round keep integers", "[refmode][examples]") {
  hl::Block h(DType::f32, {4});
  const double in[] = {0.5, 1.5, 2.5, -0.5};
  for (int k = 0; k < 4; ++k)
    h.setFloat(k, in[k]);
  hl::Block r = hl::round(h);
  CHECK(r.getFloat(0) == 0.0);
  CHECK(r.getFloat(1) == 2.0);
  CHECK(r.getFloat(2) == 2.0);
  CHECK(r.getFloat(3) == 0.0);
  hl::Block i = hl::Block::scalar(int64_t{7}).to(DType::i32);
  CHECK(hl::floor(i).dtype() == DType::i32);
  CHECK(hl::pow(i, 2).dtype() == DType::f32);
  CHECK(hl::pow(i, 2).item() == 49.0);
}

TEST_CASE("example hash_bucket matches an exact integer reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t buckets = 1000;
  for (DType dtype : {DType::i32, DType::i64}) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = randomInts({3, 333}, -2000000000, 2000000000, dtype, rng);
    std::vector<double> xs = values(x), expected(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      auto v = static_cast<int64_t>(xs[i]);
      int64_t h = v ^ (v >> 7);
      h = static_cast<int64_t>(static_cast<uint64_t>(h) << 3) ^ ~h;
      h = (h | 1) & 0x7fffffff;
      expected[i] = static_cast<double>(h % buckets);
    }
    for (int64_t bs : {32, 5}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = hash_bucket(x, buckets);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, {0, 0});
    }
  }
}

TEST_CASE("integer operators reject what C++ leaves undefined", "[refmode][examples]") {
  hl::Block i = hl::Block::scalar(int64_t{5});
  CHECK_THROWS_WITH(i % 0, "%: integer remainder by zero");
  CHECK_THROWS_WITH(i.to(DType::i32) << 32,
                    "<<: shift amount 32 is out of range for i32 (expected 0 to 31)");
  CHECK_THROWS_WITH(hl::Block::scalar(1.5) ^ i, "operator ^ needs integer or bool operands, got f64");
  CHECK_THROWS_WITH(~hl::Block::scalar(1.5), "operator ~ needs integer or bool operands, got f64");
  CHECK((hl::Block::scalar(int64_t{-7}) % 3).item() == -1.0);
  CHECK((hl::Block::scalar(-7.5) % 2).item() == -1.5);
}

TEST_CASE("example arg_extremes matches torch.argmax/argmin semantics", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 19, n = 77;
  for (DType dtype : {DType::f32, DType::bf16, DType::i32}) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = is_floating(dtype) ? reftest::randomTensor({m, n}, dtype, rng)
                                          : randomInts({m, n}, -5, 5, dtype, rng);  // many ties
    auto* p = static_cast<unsigned char*>(x.data_ptr());
    if (is_floating(dtype)) {  // row 3: a NaN wins; row 4: ties everywhere
      helion::detail::storeFloat(p + (3 * n + 40) * x.element_size(), dtype, NAN);
      helion::detail::storeFloat(p + (3 * n + 50) * x.element_size(), dtype, NAN);
      for (int64_t j = 0; j < n; ++j)
        helion::detail::storeFloat(p + (4 * n + j) * x.element_size(), dtype, j % 2 ? 0.5 : -0.5);
    }
    std::vector<double> xs = values(x), emax(m), emin(m);
    for (int64_t i = 0; i < m; ++i) {
      int64_t bmax = 0, bmin = 0;
      for (int64_t j = 1; j < n; ++j) {
        double v = xs[i * n + j];
        if (!std::isnan(xs[i * n + bmax]) && (std::isnan(v) || v > xs[i * n + bmax]))
          bmax = j;
        if (!std::isnan(xs[i * n + bmin]) && (std::isnan(v) || v < xs[i * n + bmin]))
          bmin = j;
      }
      emax[i] = static_cast<double>(bmax);
      emin[i] = static_cast<double>(bmin);
    }
    if (is_floating(dtype)) {
      CHECK(emax[3] == 40);
      CHECK(emax[4] == 1);
      CHECK(emin[4] == 0);
    }
    for (int64_t bs : {16, 5, 1}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor imax = helion::empty({m}, DType::i64), imin = helion::empty({m}, DType::i64);
      arg_extremes(x, imax, imin);
      reftest::requireClose(values(imax), emax, {0, 0});
      reftest::requireClose(values(imin), emin, {0, 0});
    }
  }
}

TEST_CASE("example histogram counts every value once (atomics)", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t bins = 13;
  const double lo = -0.75, hi = 0.8;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({5, 301}, dtype, rng);
    std::vector<double> xs = values(x), expected(bins, 0.0);
    const float scale = static_cast<float>(bins / (hi - lo));
    for (double v : xs) {
      auto b = static_cast<int64_t>((static_cast<float>(v) - static_cast<float>(lo)) * scale);
      expected[std::clamp<int64_t>(b, 0, bins - 1)] += 1;
    }
    for (int64_t bs : {64, 7}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor counts = histogram(x, bins, lo, hi);
      REQUIRE(counts.dtype() == DType::i32);
      reftest::requireClose(values(counts), expected, {0, 0});
    }
  }
}

TEST_CASE("example scatter_add adds rows with repeated indices (atomics)", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t n = 53, d = 37, rows = 5;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor src = reftest::randomTensor({n, d}, dtype, rng);
    helion::Tensor index = reftest::randomIndices({n}, rows, DType::i64, rng);
    std::vector<double> ss = values(src), is = values(index), expected(rows * d, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < d; ++j)
        expected[static_cast<int64_t>(is[i]) * d + j] += ss[i * d + j];
    for (int64_t bs : {16, 3}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = scatter_add(src, index, rows);
      REQUIRE(out.dtype() == DType::f32);
      reftest::requireClose(values(out), expected, {1e-5, 1e-5});
    }
  }
}

TEST_CASE("hl::atomic_add rejects dtypes without an atomic add", "[refmode][examples]") {
  helion::Tensor t = helion::zeros({4}, DType::i8);
  hl::Block idx = hl::arange(4);
  CHECK_THROWS_WITH(hl::atomic_add(t[idx], 1),
                    "atomic_add: a tensor of dtype i8 cannot be accumulated into atomically "
                    "(expected f32, f64, f16, bf16, i32 or i64)");
  helion::Tensor f = helion::zeros({4}, DType::bf16);
  hl::atomic_add(f, {idx}, 0.3);
  hl::atomic_add(f, {idx}, 0.3, idx > 1);
  CHECK(values(f)[0] == static_cast<double>(helion::BFloat16(0.3)));
  CHECK(values(f)[3] == static_cast<double>(helion::BFloat16(
                            static_cast<double>(helion::BFloat16(0.3)) * 2)));
}

TEST_CASE("example quant_fp8 rounds rows to f8e4m3 as torch does, dequant_fp8 undoes it",
          "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({6, 37}, dtype, rng);
    auto* px = static_cast<unsigned char*>(x.data_ptr());
    helion::detail::storeFloat(px + 3 * x.element_size(), dtype, 300.0); // row 0's amax
    for (int64_t j = 0; j < 37; ++j) // row 2 all zeros
      helion::detail::storeFloat(px + (2 * 37 + j) * x.element_size(), dtype, 0.0);
    std::vector<double> xs = values(x);
    for (int64_t bs : {4, 1}) {
      helion::ref::ScopedBlockSize scoped(bs);
      auto [q, scale] = quant_fp8(x);
      REQUIRE(q.dtype() == DType::f8e4m3);
      REQUIRE(scale.dtype() == DType::f32);
      std::vector<double> qs = values(q), ss = values(scale);
      for (int64_t i = 0; i < 6; ++i) {
        float amax = 0;
        for (int64_t j = 0; j < 37; ++j)
          amax = std::max(amax, std::fabs(static_cast<float>(xs[i * 37 + j])));
        amax = std::max(amax, 1e-12f);
        const float inv = 448.0f / amax;
        CHECK(ss[i] == static_cast<double>(amax / 448.0f));
        for (int64_t j = 0; j < 37; ++j) {
          const float v = static_cast<float>(xs[i * 37 + j]) * inv;
          INFO("row " << i << " col " << j << " value " << v);
          CHECK(qs[i * 37 + j] ==
                helion::detail::f8e4m3BitsToDouble(helion::detail::f8e4m3BitsFromDouble(v)));
          CHECK(std::fabs(qs[i * 37 + j]) <= 448.0);
        }
      }
      helion::Tensor out = helion::empty({6, 37}, dtype);
      dequant_fp8(q, scale, out);
      std::vector<double> expected(qs.size());
      for (size_t k = 0; k < qs.size(); ++k)
        expected[k] = qs[k] * ss[k / 37];
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype));
    }
  }
}
