// Jagged loops (jagged_sum), scans (cumsum_rows, cumprod_rows) and counter-based random
// numbers (dropout, hl::rand against Random123's Philox4x32-10 known answers) in ref
// mode, against double (or bit-exact) references under several block sizes.
#include "examples/cumsum.cpp"
#include "examples/dropout.cpp"
#include "examples/jagged_sum.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {

const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};

/// Offsets of `rows` rows whose lengths are in [0, maxLen] (some empty), as i64.
helion::Tensor randomOffsets(int64_t rows, int64_t maxLen, std::mt19937_64& rng) {
  helion::Tensor t = helion::empty({rows + 1}, DType::i64);
  std::uniform_int_distribution<int64_t> len(0, maxLen);
  auto* p = t.data_ptr<int64_t>();
  p[0] = 0;
  for (int64_t r = 0; r < rows; ++r)
    p[r + 1] = p[r] + (r % 5 == 2 ? 0 : len(rng));
  return t;
}

} // namespace

TEST_CASE("example jagged_sum sums rows between loaded offsets", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t rows = 17, d = 45;
  helion::Tensor offsets = randomOffsets(rows, 40, rng);
  const int64_t* off = offsets.data_ptr<int64_t>();
  const int64_t total = off[rows];
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({total, d}, dtype, rng);
    std::vector<double> xs = values(x), expected(rows * d, 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = off[r]; i < off[r + 1]; ++i)
        for (int64_t j = 0; j < d; ++j)
          expected[r * d + j] += xs[i * d + j];
    for (int64_t bs : {16, 7, 1}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor out = jagged_sum(x, offsets);
      REQUIRE(out.dtype() == dtype);
      reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
    }
  }
}

TEST_CASE("a loop bound must be an integer scalar or a 0-d integer block", "[refmode][examples]") {
  helion::Tensor offsets = helion::zeros({4}, DType::i64);
  hl::Block row = hl::arange(2);
  CHECK_THROWS_WITH(hl::tile(offsets[row], 3),
                    "hl::tile: a loop bound must be an integer scalar or a 0-d integer block, got "
                    "a block of shape [2]");
  CHECK_THROWS_WITH(hl::grid(0, hl::full({}, 2.0, hl::f32)),
                    "hl::grid: a loop bound must have an integer dtype, got f32");
  int64_t n = 0;
  for (auto t : hl::tile(offsets[1], hl::full({}, 5, hl::i32), hl::block_size(2)))
    n += t.end() - t.begin();
  CHECK(n == 5);
}

TEST_CASE("example cumsum_rows and cumprod_rows scan along rows", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 9, n = 131;
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng, -1, 1);
    helion::Tensor y = reftest::randomTensor({m, n}, dtype, rng, 0.9, 1.1);
    std::vector<double> xs = values(x), ys = values(y), sums(m * n), prods(m * n);
    for (int64_t i = 0; i < m; ++i) {
      double s = 0, p = 1;
      for (int64_t j = 0; j < n; ++j) {
        s += xs[i * n + j];
        p *= ys[i * n + j];
        sums[i * n + j] = s;
        prods[i * n + j] = p;
      }
    }
    std::vector<double> first;
    for (int64_t bs : {8, 3, 1}) {
      helion::ref::ScopedBlockSize scoped(bs);
      helion::Tensor s = cumsum_rows(x), p = cumprod_rows(y);
      REQUIRE(s.dtype() == dtype);
      reftest::requireClose(values(s), sums, reftest::toleranceFor(dtype, 1e-5));
      reftest::requireClose(values(p), prods, reftest::toleranceFor(dtype, 1e-5));
      if (first.empty())
        first = values(s);
      reftest::requireIdentical(values(s), first); // one scan per row: no block-size effect
    }
  }
}

TEST_CASE("hl::cumsum of integers gives i64 and wraps; of bools counts", "[refmode][examples]") {
  hl::Block b = hl::arange(5) > 1; // 0 0 1 1 1
  hl::Block c = hl::cumsum(b, 0);
  CHECK(c.dtype() == DType::i64);
  CHECK(c.values() == std::vector<double>{0, 0, 1, 2, 3});
  hl::Block big = hl::full({2}, INT64_MAX, hl::i64);
  CHECK(hl::cumsum(big, 0).values()[1] == static_cast<double>(int64_t{-2}));
  hl::Block p = hl::cumprod(hl::arange(5) + 1, 0);
  CHECK(p.values() == std::vector<double>{1, 2, 6, 24, 120});
  hl::Block m = hl::full({2, 3}, 2.0, hl::f32);
  CHECK(hl::cumprod(m, 0).values() == std::vector<double>{2, 2, 2, 4, 4, 4});
  CHECK_THROWS(hl::cumsum(m, 2));
}

TEST_CASE("Philox4x32-10 gives Random123's known answers", "[refmode][examples]") {
  using A4 = std::array<uint32_t, 4>;
  CHECK(helion::detail::philox4x32({0, 0, 0, 0}, {0, 0}) ==
        A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(helion::detail::philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                   {0xffffffff, 0xffffffff}) ==
        A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(helion::detail::philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                                   {0xa4093822, 0x299f31d0}) ==
        A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("hl::rand maps Philox outputs into [0, 1) exactly as specified", "[refmode][examples]") {
  using helion::detail::uint32ToUniform;
  CHECK(uint32ToUniform(0) == 0.0f);
  CHECK(uint32ToUniform(0xffffffffu) == 0.0f); // -1 -> -(-1) - 1 = 0
  CHECK(uint32ToUniform(0x80000000u) == uint32ToUniform(0x7fffffffu));
  CHECK(uint32ToUniform(0x7fffffffu) < 1.0f);
  CHECK(uint32ToUniform(12345) == 12345.0f * 4.6566127342e-10f);
  // Offset o is word o % 4 of the block at counter {o / 4 low, o / 4 high, 0, 0}, key
  // {seed low, seed high}: the four offsets 0x1400000018 + 0..3 share one block.
  const uint64_t seed = 0x123456789abcdefULL, offset = 0x1400000018ULL; // 4 * 0x500000006
  auto words = helion::detail::philox4x32({6, 5, 0, 0}, {0x89abcdef, 0x1234567});
  for (int w = 0; w < 4; ++w) {
    hl::Block r = hl::rand(static_cast<int64_t>(seed),
                           hl::full({1}, static_cast<int64_t>(offset + w), hl::i64));
    CHECK(r.dtype() == DType::f32);
    CHECK(r.values()[0] == static_cast<double>(uint32ToUniform(words[w])));
  }
  CHECK_THROWS_WITH(hl::rand(1, hl::full({2}, 1.0, hl::f32)),
                    "rand: offsets must be an integer block, got f32");
}

TEST_CASE("example dropout keeps the elements whose hl::rand exceeds p", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t m = 23, n = 301;
  const float p = 0.3f;
  const auto rseed = static_cast<int64_t>(rng());
  for (DType dtype : kFloatDTypes) {
    INFO("dtype " << reftest::name(dtype));
    helion::Tensor x = reftest::randomTensor({m, n}, dtype, rng, 0.5, 2.0); // never 0
    std::vector<double> xs = values(x), expected(m * n);
    int64_t kept = 0;
    for (int64_t k = 0; k < m * n; ++k) {
      bool keep = helion::detail::randAt(static_cast<uint64_t>(rseed), k) > p;
      kept += keep;
      expected[k] = keep ? xs[k] * static_cast<double>(1.0f / (1.0f - p)) : 0.0;
    }
    CHECK(std::abs(static_cast<double>(kept) / (m * n) - (1 - p)) < 0.03);
    for (int64_t bs : {64, 7}) {
      helion::ref::ScopedBlockSize scoped(bs);
      std::vector<double> out = values(dropout(x, p, rseed));
      for (int64_t k = 0; k < m * n; ++k)
        REQUIRE((out[k] == 0) == (expected[k] == 0)); // the mask, bit for bit
      reftest::requireClose(out, expected, reftest::toleranceFor(dtype, 1e-6));
    }
  }
}
