// Blocks: broadcasting, dtype promotion, pointwise math, reductions, views, dot.
#include "RefTestUtil.h"

using helion::DType;
using hl::Block;

namespace {
/// A block from values (row-major) of a given shape and dtype.
Block make(std::vector<int64_t> shape, std::vector<double> values, DType dtype = DType::f32) {
  Block b(dtype, std::move(shape));
  REQUIRE(b.numel() == static_cast<int64_t>(values.size()));
  for (size_t k = 0; k < values.size(); ++k)
    b.setFloat(static_cast<int64_t>(k), helion::detail::roundToDType(dtype, values[k]));
  return b;
}
} // namespace

TEST_CASE("pointwise operators broadcast like NumPy", "[refmode][block]") {
  Block col = make({3, 1}, {1, 2, 3});
  Block row = make({4}, {10, 20, 30, 40});
  Block sum = col + row;
  CHECK(sum.shape() == std::vector<int64_t>{3, 4});
  CHECK(sum.values() == std::vector<double>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
  CHECK((row - col).values()[4] == 8);
  CHECK((2 * row).values() == std::vector<double>{20, 40, 60, 80});
  CHECK((row / 10).values() == std::vector<double>{1, 2, 3, 4});
  CHECK((100 - row).values() == std::vector<double>{90, 80, 70, 60});
  CHECK((-row).values()[0] == -10);
  CHECK((row > 25).values() == std::vector<double>{0, 0, 1, 1});
  CHECK((row <= 20.0).values() == std::vector<double>{1, 1, 0, 0});
  CHECK((row == row).values() == std::vector<double>{1, 1, 1, 1});
  CHECK((30 != row).values() == std::vector<double>{1, 1, 0, 1});
  CHECK(((row > 15) & (row < 35)).values() == std::vector<double>{0, 1, 1, 0});
  CHECK(((row < 15) | (row > 35)).values() == std::vector<double>{1, 0, 0, 1});
  CHECK((!(row > 15)).values() == std::vector<double>{1, 0, 0, 0});
  Block acc = hl::zeros({4});
  acc += row;
  acc *= 2;
  acc -= 1;
  acc /= row;
  CHECK(acc.values()[0] == static_cast<double>(19.0f / 10.0f));
  CHECK_THROWS_WITH(make({3, 2}, {1, 2, 3, 4, 5, 6}) + row,
                    "+: shapes [3, 2] and [4] do not broadcast");
}

TEST_CASE("dtypes follow PyTorch promotion", "[refmode][block]") {
  auto of = [](DType d) { return hl::zeros({2}, d); };
  CHECK((of(DType::f16) + of(DType::f32)).dtype() == DType::f32);
  CHECK((of(DType::f16) + of(DType::bf16)).dtype() == DType::f32);
  CHECK((of(DType::f16) * of(DType::f16)).dtype() == DType::f16);
  CHECK((of(DType::i32) + of(DType::f16)).dtype() == DType::f16);
  CHECK((of(DType::i32) + of(DType::i64)).dtype() == DType::i64);
  CHECK((of(DType::i8) + of(DType::i32)).dtype() == DType::i32);
  CHECK((of(DType::f32) + of(DType::f64)).dtype() == DType::f64);
  CHECK((of(DType::i32) + 2.5).dtype() == DType::f32);  // a float scalar gives the default dtype
  CHECK((of(DType::i32) + 2).dtype() == DType::i32);    // scalars do not widen
  CHECK((of(DType::f16) * 2.0).dtype() == DType::f16);
  CHECK((of(DType::b8) + 1).dtype() == DType::i64);
  CHECK((of(DType::b8) & of(DType::b8)).dtype() == DType::b8);
  CHECK((of(DType::i32) / of(DType::i32)).dtype() == DType::f32);
  CHECK((of(DType::f16) < of(DType::f32)).dtype() == DType::b8);
  CHECK(hl::exp(of(DType::i32)).dtype() == DType::f32);
  CHECK(hl::exp(of(DType::bf16)).dtype() == DType::bf16);
  CHECK(hl::abs(of(DType::i8)).dtype() == DType::i8);
  CHECK(hl::where(of(DType::b8), of(DType::f16), 0.0).dtype() == DType::f16);
  CHECK_THROWS_WITH(of(DType::f32) & of(DType::f32),
                    "operator & needs integer or bool operands, got f32");
}

TEST_CASE("integer blocks stay exact and wrap like the GPU", "[refmode][block]") {
  Block big = hl::full({1}, int64_t{1} << 60, DType::i64);
  CHECK((big + 1).values()[0] == static_cast<double>((int64_t{1} << 60) + 1));
  CHECK(((big + 1) - big).item() == 1);  // exact, no double rounding
  Block i8 = hl::full({1}, 127, DType::i8);
  CHECK((i8 + 1).item() == -128);
  CHECK((hl::arange(7) / 2).values()[3] == 1.5);
}

TEST_CASE("math functions round to the arithmetic's precision", "[refmode][block]") {
  Block x = make({4}, {0.25, 1.0, 2.0, 9.0});
  auto f32 = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  CHECK(hl::exp(x).values()[2] == f32(std::exp(2.0)));
  CHECK(hl::log(x).values()[3] == f32(std::log(9.0)));
  CHECK(hl::sqrt(x).values() == std::vector<double>{0.5, 1, f32(std::sqrt(2.0)), 3});
  CHECK(hl::rsqrt(x).values()[0] == 2.0);
  CHECK(hl::tanh(x).values()[1] == f32(std::tanh(1.0)));
  CHECK(hl::sigmoid(x).values()[1] == f32(1 / (1 + std::exp(-1.0))));
  CHECK(hl::abs(-x).values() == x.values());
  CHECK(hl::maximum(x, 1.5).values() == std::vector<double>{1.5, 1.5, 2, 9});
  CHECK(hl::minimum(2, x).values() == std::vector<double>{0.25, 1, 2, 2});
  CHECK(hl::maximum(x, make({1}, {NAN})).values()[0] != hl::maximum(x, make({1}, {NAN})).values()[0]);
  CHECK(hl::where(x > 1.5, x, -1).values() == std::vector<double>{-1, -1, 2, 9});
  CHECK(hl::where(x > 1.5, 1.0, 0.0).values() == std::vector<double>{0, 0, 1, 1});
}

TEST_CASE("conversions with .to()", "[refmode][block]") {
  Block x = make({5}, {-2.7, 2.7, NAN, 1e30, 0.0});
  CHECK(x.to(DType::i32).values() == std::vector<double>{-2, 2, 0, 2147483647, 0});
  CHECK(x.to(DType::b8).values() == std::vector<double>{1, 1, 1, 1, 0});
  CHECK(x.to(DType::f16).values()[3] == INFINITY);
  CHECK(x.to(DType::bf16).values()[1] == 2.703125);
  CHECK(hl::arange(3).to(DType::f16).dtype() == DType::f16);
}

TEST_CASE("reductions over a dimension", "[refmode][block]") {
  Block x = make({2, 3}, {1, 5, 3, 4, 2, 6});
  CHECK(hl::sum(x, 1).values() == std::vector<double>{9, 12});
  CHECK(hl::sum(x, 0).values() == std::vector<double>{5, 7, 9});
  CHECK(hl::sum(x, -1, true).shape() == std::vector<int64_t>{2, 1});
  CHECK(hl::sum(x, 0, true).shape() == std::vector<int64_t>{1, 3});
  CHECK(hl::amax(x, 1).values() == std::vector<double>{5, 6});
  CHECK(hl::amin(x, 0).values() == std::vector<double>{1, 2, 3});
  CHECK(hl::mean(x, 1).values() == std::vector<double>{3, 4});
  CHECK(hl::sum(x.to(DType::i32), 1).dtype() == DType::i64);
  CHECK(hl::mean(x.to(DType::i32), 1).dtype() == DType::f32);
  CHECK(hl::sum(x.to(DType::f16), 1).dtype() == DType::f16);
  CHECK(std::isnan(hl::amax(make({3}, {1, NAN, 2}), 0).item()));
  CHECK_THROWS_WITH(hl::sum(x, 2), "sum: dimension 2 is out of range for a block of rank 2");
  CHECK_THROWS_WITH(hl::amax(hl::zeros({2, 0}), 1),
                    "amax: dimension 1 of a block of shape [2, 0] is empty");
}

TEST_CASE("views: newaxis, select, transpose, reshape", "[refmode][block]") {
  Block x = make({2, 3}, {0, 1, 2, 3, 4, 5});
  CHECK(x[hl::all, hl::newaxis].shape() == std::vector<int64_t>{2, 1, 3});
  CHECK(x[hl::newaxis].shape() == std::vector<int64_t>{1, 2, 3});
  CHECK(x[hl::all, hl::all, hl::newaxis].shape() == std::vector<int64_t>{2, 3, 1});
  CHECK(x[1].values() == std::vector<double>{3, 4, 5});
  CHECK(x[hl::all, 2].values() == std::vector<double>{2, 5});
  CHECK(x[hl::all, -1].values() == std::vector<double>{2, 5});
  Block t = x.transpose(0, 1);
  CHECK(t.shape() == std::vector<int64_t>{3, 2});
  CHECK(t.values() == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(x.reshape(3, 2).values() == x.values());
  CHECK(x.reshape({-1}).shape() == std::vector<int64_t>{6});
  CHECK(x.reshape(1, -1, 2).shape() == std::vector<int64_t>{1, 3, 2});
  CHECK_THROWS_WITH(x.reshape(4, 2), "reshape: cannot view a block of shape [2, 3] (6 elements) as [4, 2]");
  CHECK_THROWS_WITH((x[hl::all, 3]), "block subscript: index 3 is out of range for dimension 1 of size 3");
  CHECK_THROWS_WITH((x[0, 0, 0]), "block subscript: too many indices for a block of shape [2, 3]");
  CHECK_THROWS_WITH(x.transpose(0, 2), "transpose: dimension 2 is out of range for a block of rank 2");
}

TEST_CASE("dot and addmm on 2-D and batched blocks", "[refmode][block][dot]") {
  Block a = make({2, 3}, {1, 2, 3, 4, 5, 6});
  Block b = make({3, 2}, {7, 8, 9, 10, 11, 12});
  Block c = hl::dot(a, b);
  CHECK(c.dtype() == DType::f32);
  CHECK(c.values() == std::vector<double>{58, 64, 139, 154});
  Block acc = hl::full({2, 2}, 1.0);
  CHECK(hl::dot(a, b, acc).values() == std::vector<double>{59, 65, 140, 155});
  CHECK(hl::addmm(acc, a, b).values() == std::vector<double>{59, 65, 140, 155});
  CHECK(hl::dot(a.to(DType::f16), b.to(DType::bf16)).dtype() == DType::f32);

  Block ba = make({2, 1, 2}, {1, 2, 3, 4});
  Block bb = make({2, 2, 1}, {5, 6, 7, 8});
  CHECK(hl::dot(ba, bb).shape() == std::vector<int64_t>{2, 1, 1});
  CHECK(hl::dot(ba, bb).values() == std::vector<double>{17, 53});

  // An f16 block holding f32-precision values is rounded to f16 before the product,
  // as the tensor cores would read it.
  Block h = hl::full({1, 1}, 2048.0, DType::f16) + 1;  // 2049, not an f16 value
  CHECK(hl::dot(h, hl::full({1, 1}, 1.0, DType::f16)).item() == 2048);

  CHECK_THROWS_WITH(hl::dot(a, a), "dot: shapes [2, 3] and [2, 3] do not multiply");
  CHECK_THROWS_WITH(hl::dot(a, b, hl::zeros({3, 3})),
                    "dot: accumulator of shape [3, 3], expected [2, 2]");
  CHECK_THROWS_WITH(hl::dot(a.to(DType::i32), b), "dot: expected a floating block for a, got i32");
  CHECK_THROWS_WITH(hl::dot(hl::zeros({4}), b), "dot: expected a 2-D or 3-D block for a, got shape [4]");
  CHECK_THROWS_WITH(hl::addmm(acc, ba, b), "addmm: operands of rank 3 and 2 (shapes [2, 1, 2] and [3, 2])");
}

TEST_CASE("creation: zeros, full, arange", "[refmode][block]") {
  hl::Tile t(10, 13, 4, 2);
  Block z = hl::zeros({t, 2}, DType::i32);
  CHECK(z.shape() == std::vector<int64_t>{3, 2});
  CHECK(z.dtype() == DType::i32);
  Block f = hl::full({t}, -INFINITY, DType::f32);
  CHECK(f.values() == std::vector<double>{-INFINITY, -INFINITY, -INFINITY});
  CHECK(hl::full({2}, 7, DType::i64).values() == std::vector<double>{7, 7});
  CHECK(hl::arange(2, 5).values() == std::vector<double>{2, 3, 4});
  CHECK(hl::arange(2, 5, DType::i32).dtype() == DType::i32);
  CHECK(hl::arange(4).dtype() == DType::i64);
  CHECK(t.index().values() == std::vector<double>{10, 11, 12});
  CHECK(t.index().dtype() == DType::i64);
  CHECK_THROWS_WITH(hl::zeros({-2}), "zeros: negative size -2 in shape");
}
