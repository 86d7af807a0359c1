// grouped_gemm (a grouped GEMM over row offsets: the matmul template's grouped form)
// in ref mode against a double reference: random group sizes with empty groups and
// sizes that are no multiple of the block size, int32 and int64 offsets.
#include "examples/grouped_gemm.cpp"

#include "RefTestUtil.h"

using helion::DType;
using reftest::values;

namespace {

/// G + 1 offsets of groups with sizes in [0, maxRows] (group 1 always empty).
helion::Tensor groupOffsets(int64_t groups, int64_t maxRows, DType dtype, std::mt19937_64& rng) {
  helion::Tensor t = helion::empty({groups + 1}, dtype);
  std::uniform_int_distribution<int64_t> rows(0, maxRows);
  int64_t at = 0;
  for (int64_t g = 0; g <= groups; ++g) {
    if (dtype == DType::i32)
      t.data_ptr<int32_t>()[g] = static_cast<int32_t>(at);
    else
      t.data_ptr<int64_t>()[g] = at;
    at += g == 1 ? 0 : rows(rng);
  }
  return t;
}

int64_t offsetAt(const helion::Tensor& t, int64_t g) {
  return t.dtype() == DType::i32 ? t.data_ptr<int32_t>()[g] : t.data_ptr<int64_t>()[g];
}

} // namespace

TEST_CASE("example grouped_gemm matches a double reference", "[refmode][examples]") {
  uint64_t seed = reftest::freshSeed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t groups = 5, k = 23, n = 19;
  for (DType offDtype : {DType::i32, DType::i64})
    for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
      INFO("dtype " << reftest::name(dtype) << ", offsets " << reftest::name(offDtype));
      helion::Tensor offsets = groupOffsets(groups, 30, offDtype, rng);
      const int64_t total = offsetAt(offsets, groups);
      helion::Tensor a = reftest::randomTensor({total, k}, dtype, rng);
      helion::Tensor b = reftest::randomTensor({groups, k, n}, dtype, rng);
      std::vector<double> as = values(a), bs = values(b), expected(total * n, 0.0);
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t i = offsetAt(offsets, g); i < offsetAt(offsets, g + 1); ++i)
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t j = 0; j < n; ++j)
              expected[i * n + j] += as[i * k + kk] * bs[(g * k + kk) * n + j];
      for (int64_t block : {16, 7, 1}) {
        INFO("block size " << block);
        helion::ref::ScopedBlockSize scoped(block);
        helion::Tensor out = grouped_gemm(a, b, offsets);
        REQUIRE(out.dtype() == dtype);
        REQUIRE(out.sizes() == std::vector<int64_t>{total, n});
        reftest::requireClose(values(out), expected, reftest::toleranceFor(dtype, 1e-5));
      }
    }
}

TEST_CASE("example grouped_gemm rejects mismatched shapes", "[refmode][examples]") {
  helion::Tensor a = helion::zeros({6, 4}, DType::f32);
  helion::Tensor offsets = helion::zeros({3}, DType::i32);
  REQUIRE_THROWS_WITH(grouped_gemm(a, helion::zeros({2, 5, 3}, DType::f32), offsets),
                      Catch::Contains("grouped_gemm: inner dimensions differ"));
  REQUIRE_THROWS_WITH(grouped_gemm(a, helion::zeros({3, 4, 3}, DType::f32), offsets),
                      Catch::Contains("one entry per group plus one"));
}
