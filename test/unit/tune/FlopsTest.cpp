// The work of a kernel call with hl::dot (tune::dotFlops), on the hand-built matmul of
// TestKernels.h with its operand types filled in as infer-types would.
#include "TestKernels.h"
#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Config/ConfigSpec.h"
#include "helion/Tune/Flops.h"

#include <catch2/catch.hpp>

#include <random>

using namespace helion;
using namespace helion::ir;

namespace {

/// The matmul with its loads typed [tm, tk] and [tk, tn].
Kernel typedMatmul() {
  Kernel k = config::test::matmulKernel();
  const Stmt& grid = *k.body[0];
  const Stmt& kLoop = *grid.body[1];
  const Expr& dot = *kLoop.body[0]->value;
  BlockType a{ElemType::ofParam(0), {Dim::ofTile(0), Dim::ofTile(2)}};
  BlockType b{ElemType::ofParam(1), {Dim::ofTile(2), Dim::ofTile(1)}};
  auto typedDot = std::make_shared<Expr>(dot);
  typedDot->operands[0] = withType(dot.operands[0], a);
  typedDot->operands[1] = withType(dot.operands[1], b);
  auto assign = std::make_shared<Stmt>(*kLoop.body[0]);
  assign->value = typedDot;
  auto loop = std::make_shared<Stmt>(kLoop);
  loop->body = {assign};
  auto outer = std::make_shared<Stmt>(grid);
  outer->body[1] = loop;
  k.body = {outer};
  return k;
}

} // namespace

TEST_CASE("a matmul's work is 2mnk", "[flops]") {
  Kernel k = typedMatmul();
  config::SizeHints h;
  h.blockSizes = {{0, 4096}, {1, 2048}, {2, 512}};
  auto flops = tune::dotFlops(k, h);
  REQUIRE(flops);
  CHECK(*flops == 2.0 * 4096 * 2048 * 512);
}

/// typedMatmul with its K loop inside one more loop, over a new tile 3 of block size
/// decl 3 (fixed to `fixed` when given) that is none of the dot's dims.
Kernel matmulInLoop(std::optional<int64_t> fixed) {
  Kernel k = typedMatmul();
  TileVar t = k.tiles[2];
  t.id = 3;
  t.name = "tr";
  t.blockSize = 3;
  k.tiles.push_back(t);
  BlockSizeDecl d = k.blockSizes[2];
  d.id = 3;
  d.name = "tr";
  d.fixed = fixed;
  k.blockSizes.push_back(d);
  auto grid = std::make_shared<Stmt>(*k.body[0]);
  auto outer = std::make_shared<Stmt>(*grid->body[1]); // a copy of the K loop's For
  outer->tiles = {3};
  outer->body = {grid->body[1]};
  grid->body[1] = outer;
  k.body = {grid};
  return k;
}

TEST_CASE("a loop over tiles that are none of a dot's dims counts once", "[flops]") {
  // mlp_relu recomputes its hidden layer for each column tile: the useful work is the
  // product's, not the recomputation the tile size causes.
  config::SizeHints h;
  h.blockSizes = {{0, 4096}, {1, 2048}, {2, 512}, {3, 64}};
  auto flops = tune::dotFlops(matmulInLoop(std::nullopt), h);
  REQUIRE(flops);
  CHECK(*flops == 2.0 * 4096 * 2048 * 512);
  // A loop of one-element tiles (hl::grid over groups) runs distinct products.
  flops = tune::dotFlops(matmulInLoop(1), h);
  REQUIRE(flops);
  CHECK(*flops == 2.0 * 4096 * 2048 * 512 * 64);
}

TEST_CASE("the work is not counted without every extent, types or a dot", "[flops]") {
  config::SizeHints h;
  h.blockSizes = {{0, 4096}, {1, 2048}}; // tk's extent unknown
  CHECK_FALSE(tune::dotFlops(typedMatmul(), h));
  h.blockSizes[2] = 512;
  CHECK_FALSE(tune::dotFlops(config::test::matmulKernel(), h)); // untyped
  CHECK_FALSE(tune::dotFlops(config::test::tiledKernel(), h));  // no hl::dot
}

TEST_CASE("a dot kernel's candidates follow its template rules", "[flops][search]") {
  // Every neighbour of the default and every random draw is a candidate (validate()
  // passes: num_warps 8 or 12, tk 64, tm and tn in [64, 256]) in canonical form.
  config::ConfigSpec spec = config::ConfigSpec::fromKernel(config::test::matmulKernel());
  REQUIRE(spec.hasDot);
  const config::Config def = spec.defaultConfig();
  std::vector<config::Config> seen = config::neighbors(def, spec);
  CHECK(!seen.empty());
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i)
    seen.push_back(config::randomConfig(spec, rng));
  for (const config::Config& c : seen) {
    INFO(config::formatConfig(c, spec));
    CHECK(config::isCandidate(c, spec));
    CHECK(config::formatConfig(config::canonicalize(c, spec), spec) ==
          config::formatConfig(c, spec));
    CHECK(c.blockSizes.size() == 3);
  }
}
