// Loads and stores: subscripts, value semantics of loaded blocks, gathers, hl::load and
// hl::store with masks, and every misuse error.
#include "RefTestUtil.h"

using helion::DType;
using helion::Tensor;
using hl::Block;

namespace {
/// A tensor holding 0, 1, 2, ... (row-major).
Tensor iota(std::vector<int64_t> sizes, DType dtype = DType::f32) {
  Tensor t = helion::empty(sizes, dtype);
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  for (int64_t k = 0; k < t.numel(); ++k)
    helion::detail::storeFloat(p + k * t.element_size(), dtype, static_cast<double>(k));
  return t;
}
Block indexBlock(std::vector<int64_t> shape, std::vector<int64_t> values, DType dtype = DType::i64) {
  Block b(dtype, std::move(shape));
  for (size_t k = 0; k < values.size(); ++k)
    b.setInt(static_cast<int64_t>(k), values[k]);
  return b;
}
} // namespace

TEST_CASE("subscripts with tiles, integers, hl::all and hl::newaxis", "[refmode][memory]") {
  Tensor x = iota({4, 5});
  hl::Tile rows(1, 3, 2, 0), cols(3, 5, 2, 1);
  auto v = x[rows, cols];
  CHECK(v.shape() == std::vector<int64_t>{2, 2});
  CHECK(v.values() == std::vector<double>{8, 9, 13, 14});
  CHECK(x[2, cols].values() == std::vector<double>{13, 14});
  CHECK(x[-1, 0].values() == std::vector<double>{15});
  CHECK(x[rows].shape() == std::vector<int64_t>{2, 5});  // trailing dims: hl::all
  CHECK(x[rows, hl::all].values()[5] == 10);
  CHECK(x[hl::newaxis, rows, hl::newaxis, 0].shape() == std::vector<int64_t>{1, 2, 1});
  CHECK(x[hl::all, hl::all].dtype() == DType::f32);
}

TEST_CASE("a loaded block is a value; assigning a temporary subscript stores", "[refmode][memory]") {
  Tensor x = iota({6});
  hl::Tile t(0, 3, 3, 0);
  auto v = x[t];
  x[t] = 0.0;  // a store
  CHECK(reftest::values(x) == std::vector<double>{0, 0, 0, 3, 4, 5});
  CHECK(v.values() == std::vector<double>{0, 1, 2});  // loaded before the store
  v = v * 2;  // rebinds v; x is not written
  CHECK(v.values() == std::vector<double>{0, 2, 4});
  CHECK(reftest::values(x) == std::vector<double>{0, 0, 0, 3, 4, 5});
  v += 1;
  CHECK(v.values() == std::vector<double>{1, 3, 5});
  x[t] = v;
  CHECK(reftest::values(x) == std::vector<double>{1, 3, 5, 3, 4, 5});
  x[hl::Tile(3, 6, 3, 1)] += v;  // read-modify-write
  CHECK(reftest::values(x) == std::vector<double>{1, 3, 5, 4, 7, 10});
  x[hl::Tile(3, 6, 3, 1)] = x[t];  // tensor to tensor
  CHECK(reftest::values(x) == std::vector<double>{1, 3, 5, 1, 3, 5});
  const Tensor& cx = x;
  auto w = cx[t];  // loads from a const tensor are value blocks too
  CHECK(hl::sum(w, 0).item() == 9);
  CHECK_THROWS_WITH(std::move(v) = w, "store: this block was reassigned and no longer refers to tensor memory");
}

TEST_CASE("stores broadcast and cast to the destination dtype", "[refmode][memory]") {
  Tensor h = helion::zeros({2, 3}, DType::f16);
  h[hl::all, hl::all] = hl::full({3}, 1.0 + std::ldexp(1, -11) + std::ldexp(1, -20));
  CHECK(reftest::values(h) == std::vector<double>{1 + std::ldexp(1, -10), 1 + std::ldexp(1, -10),
                                                  1 + std::ldexp(1, -10), 1 + std::ldexp(1, -10),
                                                  1 + std::ldexp(1, -10), 1 + std::ldexp(1, -10)});
  Tensor i = helion::zeros({3}, DType::i32);
  i[hl::all] = hl::full({3}, -2.9);
  CHECK(reftest::values(i) == std::vector<double>{-2, -2, -2});
  Tensor b = helion::zeros({2}, DType::b8);
  b[hl::all] = hl::arange(2);
  CHECK(reftest::values(b) == std::vector<double>{0, 1});
  Tensor f = helion::zeros({2}, DType::f32);
  f[hl::all] = hl::arange(2);
  CHECK(reftest::values(f) == std::vector<double>{0, 1});
  CHECK_THROWS_WITH((f[hl::all] = hl::zeros({3})),
                    "store: shapes [2] and [3] do not broadcast");
  CHECK_THROWS_WITH((f[hl::all] = hl::zeros({2, 2})),
                    "store: cannot store a block of shape [2, 2] into a subscript of shape [2]");
}

TEST_CASE("gathers: an index block adds its own dims", "[refmode][memory][gather]") {
  Tensor weight = iota({5, 4});
  Block idx = indexBlock({2, 2}, {4, 0, 1, 4}, DType::i32);
  hl::Tile te(1, 3, 2, 0);
  auto g = weight[idx, te];
  CHECK(g.shape() == std::vector<int64_t>{2, 2, 2});
  CHECK(g.values() == std::vector<double>{17, 18, 1, 2, 5, 6, 17, 18});
  Tensor out = helion::zeros({5, 4}, DType::f32);
  out[indexBlock({2}, {3, 1}), hl::all] = hl::full({1}, 7.0);
  CHECK(reftest::values(out)[12] == 7);
  CHECK(reftest::values(out)[4] == 7);
  CHECK(reftest::values(out)[0] == 0);
  CHECK_THROWS_WITH((weight[indexBlock({1}, {5}), te]),
                    "subscript: index 5 is out of bounds for dimension 0 of size 5");
  CHECK_THROWS_WITH((weight[hl::full({1}, 1.0), te]),
                    "subscript: an index block must have an integer dtype, got f32");
  CHECK_THROWS_WITH((weight[hl::arange(2) > 0, te]),
                    "subscript: an index block must have an integer dtype, got b8");
}

TEST_CASE("hl::load and hl::store broadcast their indices together", "[refmode][memory][gather]") {
  Tensor x = iota({3, 4});
  hl::Tile rows(0, 3, 4, 0);
  Block labels = indexBlock({3}, {2, 0, 3});
  Block picked = hl::load(x, {rows.index(), labels});
  CHECK(picked.shape() == std::vector<int64_t>{3});
  CHECK(picked.values() == std::vector<double>{2, 4, 11});
  // Tiles become their index() and broadcast: [3, 1] with [4] gives [3, 4].
  Block all = hl::load(x, {rows.index()[hl::all, hl::newaxis], hl::Tile(0, 4, 4, 0)});
  CHECK(all.shape() == std::vector<int64_t>{3, 4});
  CHECK(all.values() == reftest::values(x));
  CHECK(hl::load(x, {1, hl::all}).values() == std::vector<double>{4, 5, 6, 7});

  // Masked-out elements read 0 and are not bounds-checked.
  Block cols = indexBlock({4}, {1, 9, 3, -5});
  Block mask = (cols >= 0) & (cols < 4);
  CHECK(hl::load(x, {2, cols}, mask).values() == std::vector<double>{9, 0, 11, 0});
  CHECK_THROWS_WITH(hl::load(x, {2, cols}), "load: index 9 is out of bounds for dimension 1 of size 4");

  Tensor out = helion::zeros({3, 4}, DType::f32);
  hl::store(out, {rows.index(), labels}, hl::full({1}, 5.0));
  CHECK(reftest::values(out) == std::vector<double>{0, 0, 5, 0, 5, 0, 0, 0, 0, 0, 0, 5});
  hl::store(out, {0, cols}, hl::arange(4).to(DType::f32) + 10, mask);
  CHECK(reftest::values(out)[1] == 10);
  CHECK(reftest::values(out)[3] == 12);
  CHECK(reftest::values(out)[2] == 5);
  CHECK_THROWS_WITH(hl::load(x, {rows.index()}), "load: 1 indices for a tensor of rank 2");
  CHECK_THROWS_WITH(hl::load(x, {rows.index(), indexBlock({2}, {0, 1})}),
                    "load: shapes [3] and [2] do not broadcast");
  CHECK_THROWS_WITH(hl::load(x, {hl::newaxis, 0}), "load: hl::newaxis and N-D tiles are not indices of load");
}

TEST_CASE("subscript misuse raises helion::Error", "[refmode][memory][errors]") {
  Tensor x = iota({4, 5});
  CHECK_THROWS_WITH((x[1, 2, 3]), "subscript: 3 indices for a tensor of rank 2");
  CHECK_THROWS_WITH((x[hl::Tile(2, 6, 4, 0)]),
                    "subscript: tile [2, 6) is out of bounds for dimension 0 of size 4");
  CHECK_THROWS_WITH((x[4]), "subscript: index 4 is out of bounds for dimension 0 of size 4");
  CHECK_THROWS_WITH((x[0, -6]), "subscript: index -1 is out of bounds for dimension 1 of size 5");
  CHECK_THROWS_WITH((Tensor()[0]), "subscript: the tensor is undefined");
}
