// ir::LayoutIndex: where a value's dims and an access's last subscript sit in the
// thread layout, as the persistent-loads pass and the emitter both ask it.
#include "helion/IR/LayoutIndex.h"

#include <catch2/catch.hpp>

using namespace helion::ir;

TEST_CASE("layout index: positions of dims and of last subscripts", "[ir]") {
  Kernel k;
  k.tiles.resize(2);
  k.tiles[0].id = 0; // tm
  k.tiles[1].id = 1; // tn, not in the layout
  Axis a0;
  a0.id = 0;
  a0.tensorDims = {{0, 1}, {2, 0}}; // x.size(1) and w.size(0)
  k.axes = {a0};
  LayoutIndex none(k);
  CHECK(none.tile(0) == -1);

  k.threadLayout = std::vector<ThreadAxis>{{false, 0, true, {}}, {true, 0, false, {0}}};
  LayoutIndex ix(k);
  CHECK(ix.axis(0) == 0);
  CHECK(ix.tile(0) == 1);
  CHECK(ix.tile(1) == -1);
  CHECK(ix.tensorDim(0, 1) == 0);
  CHECK(ix.tensorDim(2, 0) == 0);
  CHECK(ix.tensorDim(0, 0) == -1);

  BlockType t;
  t.dims = {Dim::ofTile(0), Dim::one(), Dim::full(0), Dim::ofTile(1)};
  CHECK(ix.positions(t) == std::vector<int>{0, 1}); // ascending, one dim and tn left out
  CHECK(ix.dim(Dim::one()) == -1);

  // x[tm, :]: the last subscript runs along x.size(1), reduction axis a0.
  CHECK(ix.lastSubscript(0, {Index::ofTile(0), Index::all()}) == 0);
  // x[:, tm] (a NewAxis does not count as a tensor dim): along tm.
  CHECK(ix.lastSubscript(0, {Index::all(), Index::ofTile(0)}) == 1);
  CHECK(ix.lastSubscript(0, {Index::ofTile(0), Index::newAxis(), Index::all()}) == 0);
  CHECK(ix.lastSubscript(0, {}) == -1);
}
