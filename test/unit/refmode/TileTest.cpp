// Tile loops: tiles and their clamped edges, N-D loops, fixed block sizes, grids,
// register_block_size, specialize, and the ref-mode block size controls.
#include "RefTestUtil.h"

#include <cstdlib>

using helion::DType;
using helion::Tensor;

namespace {
std::vector<std::vector<int64_t>> ranges(hl::TileRange range) {
  std::vector<std::vector<int64_t>> out;
  for (hl::Tile t : range)
    out.push_back({t.begin(), t.end(), t.block_size(), t.id()});
  return out;
}
} // namespace

TEST_CASE("1-D tiles are clamped at the edge", "[refmode][tile]") {
  helion::ref::ScopedBlockSize bs(4);
  CHECK(ranges(hl::tile(10)) ==
        std::vector<std::vector<int64_t>>{{0, 4, 4, 0}, {4, 8, 4, 1}, {8, 10, 4, 2}});
  CHECK(ranges(hl::tile(3, 10)) == std::vector<std::vector<int64_t>>{{3, 7, 4, 0}, {7, 10, 4, 1}});
  CHECK(ranges(hl::tile(10, hl::block_size(6))) ==
        std::vector<std::vector<int64_t>>{{0, 6, 6, 0}, {6, 10, 6, 1}});
  CHECK(ranges(hl::tile(2, 5, hl::block_size(hl::tunable))) ==
        std::vector<std::vector<int64_t>>{{2, 5, 4, 0}});
  CHECK(ranges(hl::tile(0)).empty());
  for (hl::Tile t : hl::tile(10))
    if (t.id() == 2)
      CHECK(t.index().values() == std::vector<double>{8, 9});
  CHECK_THROWS_WITH(hl::tile(10, hl::block_size({1, 2})),
                    "tile: 2 block sizes given for a loop over 1 dimensions");
  CHECK_THROWS_WITH(hl::block_size(-1), "block_size: expected a positive block size or hl::tunable, got -1");
}

TEST_CASE("N-D tiles: structured bindings, last dim fastest", "[refmode][tile]") {
  helion::ref::ScopedBlockSize bs(2);
  std::vector<std::vector<int64_t>> seen;
  for (auto [tm, tn] : hl::tile({3, 5}))
    seen.push_back({tm.begin(), tm.end(), tn.begin(), tn.end()});
  CHECK(seen.size() == 6);
  CHECK(seen[0] == std::vector<int64_t>{0, 2, 0, 2});
  CHECK(seen[2] == std::vector<int64_t>{0, 2, 4, 5});
  CHECK(seen[5] == std::vector<int64_t>{2, 3, 4, 5});
  int count = 0;
  for (auto [tb, tm] : hl::tile({3, 5}, hl::block_size({1, hl::tunable}))) {
    CHECK(tb.end() - tb.begin() == 1);
    CHECK(tm.block_size() == 2);
    ++count;
  }
  CHECK(count == 9);
  int64_t m = 3, n = 4, k = 2;
  int triples = 0;
  for (auto [a, b, c] : hl::tile({m, n, k}, hl::block_size({2, 3, 1}))) {
    CHECK(c.block_size() == 1);
    ++triples;
  }
  CHECK(triples == 2 * 2 * 2);
}

TEST_CASE("hl::tile(x.sizes()) tiles every dimension; x[tile] subscripts", "[refmode][tile]") {
  for (int64_t bs : {1, 3, 64}) {
    helion::ref::ScopedBlockSize scoped(bs);
    for (std::vector<int64_t> sizes : {std::vector<int64_t>{7}, {4, 5}, {2, 3, 5}}) {
      Tensor x = helion::zeros(sizes, DType::f32);
      Tensor out = helion::zeros(sizes, DType::i64);
      int64_t covered = 0;
      for (auto tile : hl::tile(x.sizes())) {
        REQUIRE(tile.size() == sizes.size());
        out[tile] = x[tile] + 1;
        covered += x[tile].numel();
      }
      CHECK(covered == x.numel());
      for (double v : reftest::values(out))
        REQUIRE(v == 1);
    }
  }
}

TEST_CASE("hl::grid yields scalar indices", "[refmode][tile]") {
  std::vector<int64_t> seen;
  for (int64_t i : hl::grid(3))
    seen.push_back(i);
  for (int64_t i : hl::grid(5, 7))
    seen.push_back(i);
  CHECK(seen == std::vector<int64_t>{0, 1, 2, 5, 6});
  Tensor x = helion::zeros({3, 4}, DType::f32);
  for (int64_t i : hl::grid(3))
    for (auto tn : hl::tile(4))
      x[i, tn] = hl::full({tn}, static_cast<double>(i));
  CHECK(reftest::values(x)[11] == 2);
}

TEST_CASE("ref-mode block size controls", "[refmode][tile]") {
  helion::ref::set_block_size(32);
  {
    helion::ref::ScopedBlockSize scoped(7);
    CHECK(helion::ref::block_size() == 7);
    CHECK(hl::register_block_size(1000) == 7);
    CHECK(hl::register_block_size(16, 64) == 16);
    CHECK(hl::register_block_size(1, 4) == 4);
  }
  CHECK(helion::ref::block_size() == 32);
  CHECK(hl::specialize(int64_t{64}) == 64);
  CHECK_THROWS_WITH(helion::ref::set_block_size(0),
                    "ref::set_block_size: expected a positive block size, got 0");
  CHECK_THROWS_WITH(hl::register_block_size(8, 4),
                    "register_block_size: expected 1 <= lo <= hi, got lo=8 hi=4");
  ::setenv("HELION_REF_BLOCK_SIZE", "5", 1);
  CHECK(helion::ref::detail::blockSizeFromEnvironment() == 5);
  ::setenv("HELION_REF_BLOCK_SIZE", "five", 1);
  CHECK_THROWS_WITH(helion::ref::detail::blockSizeFromEnvironment(),
                    "HELION_REF_BLOCK_SIZE must be a positive integer, got 'five'");
  ::unsetenv("HELION_REF_BLOCK_SIZE");
  CHECK(helion::ref::detail::blockSizeFromEnvironment() == 32);
}
