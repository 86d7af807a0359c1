// ConfigSpec from hand-built kernels: keys, legal values, site order, defaults.
#include "TestKernels.h"
#include "helion/Config/ConfigSpec.h"
#include "helion/Config/Sites.h"

#include <catch2/catch.hpp>

using namespace helion;
using namespace helion::config;

namespace {

SizeHints softmaxHints(int64_t rows, int64_t cols) {
  SizeHints h;
  h.blockSizes[0] = rows;
  h.axes[0] = cols;
  return h;
}

std::vector<std::string> errorPaths(const Config& c, const ConfigSpec& spec) {
  std::vector<std::string> out;
  for (const ConfigError& e : validate(c, spec))
    out.push_back(e.path() + ": " + e.rule);
  return out;
}

} // namespace

TEST_CASE("softmax: one grid tile and one reduction axis", "[spec]") {
  ConfigSpec spec = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(4096, 8192));
  CHECK(spec.kernelName == "softmax");
  REQUIRE(spec.blockSizes.size() == 1);
  CHECK(spec.blockSizes[0].name == "tm");
  CHECK(spec.blockSizes[0].min == 1);
  CHECK(spec.blockSizes[0].max == 4096);
  CHECK(spec.blockSizes[0].inGridLoop);
  CHECK(spec.multiTileLoops.empty());
  CHECK(spec.l2Loops.empty());
  CHECK(spec.innerLoops.empty());
  REQUIRE(spec.reductionLoops.size() == 1);
  CHECK(spec.reductionLoops[0].name == "a0 (x.size(1))");
  CHECK(spec.reductionLoops[0].maxChunk == 4096);
  CHECK(spec.numSites == 2);
  CHECK(spec.numLoadSites == 1);
  CHECK(spec.pidTypes.size() == 4);
  CHECK_FALSE(spec.hasDot);

  Config d = spec.defaultConfig();
  CHECK(d.blockSizes == std::vector<int64_t>{1});
  CHECK(d.reductionLoops == std::vector<std::optional<int64_t>>{std::nullopt});
  CHECK(d.numWarps == 8);
  CHECK(d.numStages == 1);
  CHECK(d.pidType == PidType::Flat);
  CHECK(d.indexing == std::vector<Indexing>{Indexing::Pointer, Indexing::Pointer});
  CHECK(d.loadEvictionPolicies == std::vector<EvictionPolicy>{EvictionPolicy::Default});
  CHECK(validate(d, spec).empty());
}

TEST_CASE("softmax defaults follow the row length", "[spec]") {
  Config longRows = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(64, 65536)).defaultConfig();
  // Persistent however long (the launcher loops rows over 64 elements per thread), with
  // 16 warps from rows of 16384 on.
  CHECK_FALSE(longRows.reductionLoops[0].has_value());
  CHECK(longRows.blockSizes[0] == 1);
  CHECK(longRows.numWarps == 16);
  Config rows8k = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(64, 8192)).defaultConfig();
  CHECK(rows8k.numWarps == 8);

  // A long row the launcher's 16384-wide chunks would pad by 30 % (50257 -> 65536) is
  // looped in 4096-wide chunks (53248, 6 %); one they pad little stays persistent.
  Config vocab = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(64, 50257)).defaultConfig();
  CHECK(vocab.numWarps == 16);
  CHECK(vocab.reductionLoops[0] == std::optional<int64_t>{4096});
  Config nearPow2 = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(64, 131000)).defaultConfig();
  CHECK_FALSE(nearPow2.reductionLoops[0].has_value());

  Config shortRows = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(4096, 1000)).defaultConfig();
  CHECK_FALSE(shortRows.reductionLoops[0].has_value());
  CHECK(shortRows.blockSizes[0] == 4); // 4096 elements per program over rows of 1024

  // An axis of extent 1 can never be looped.
  ConfigSpec tiny = ConfigSpec::fromKernel(test::softmaxKernel(), softmaxHints(4096, 1));
  CHECK(tiny.reductionLoops[0].maxChunk == 0);
  CHECK(tiny.reductionChoices(0).size() == 1);
  CHECK(validate(tiny.defaultConfig(), tiny).empty());
}

TEST_CASE("a kernel without axes (before infer-types) has no reduction_loops", "[spec]") {
  ConfigSpec spec = ConfigSpec::fromKernel(test::softmaxKernel(/*withAxis=*/false));
  CHECK(spec.reductionLoops.empty());
  Config d = spec.defaultConfig();
  CHECK(d.reductionLoops.empty());
  CHECK(d.blockSizes == std::vector<int64_t>{1024}); // elementwise budget
  CHECK(d.numWarps == 4);
  CHECK(validate(d, spec).empty());
}

TEST_CASE("matmul: two grid tiles and one inner tile loop", "[spec]") {
  ConfigSpec spec = ConfigSpec::fromKernel(test::matmulKernel());
  REQUIRE(spec.blockSizes.size() == 3);
  CHECK(spec.blockSizes[0].inGridLoop);
  CHECK(spec.blockSizes[1].inGridLoop);
  CHECK_FALSE(spec.blockSizes[2].inGridLoop);
  // The GEMM template's tiles: tm, tn in [64, 256], tk 64; 8 or 12 warps.
  CHECK(spec.blockSizeChoices(0) == std::vector<int64_t>{64, 128, 256});
  CHECK(spec.blockSizeChoices(1) == std::vector<int64_t>{64, 128, 256});
  CHECK(spec.blockSizeChoices(2) == std::vector<int64_t>{64});
  CHECK(spec.numWarpsChoices() == std::vector<int>{8, 12});
  // The template walks the tiles in its own order, loads by TMA / cp.async and sets its
  // own registers: no loop_orders, load_eviction_policies, maxnreg, vector_bytes.
  CHECK(spec.multiTileLoops.empty());
  REQUIRE(spec.l2Loops.size() == 1);
  CHECK(spec.l2Loops[0].name == "tm, tn");
  REQUIRE(spec.innerLoops.size() == 1);
  CHECK(spec.innerLoops[0].name == "tk");
  CHECK(spec.reductionLoops.empty());
  CHECK(spec.numSites == 3);
  CHECK(spec.numLoadSites == 0);
  CHECK(spec.hasDot);
  CHECK_FALSE(spec.hasMaxnreg());
  CHECK_FALSE(spec.hasVectorBytes());
  CHECK_FALSE(spec.hasNumSmMultiplier());
  CHECK(spec.hasNumStages());

  Config d = spec.defaultConfig();
  // The fastest measured sm90 GEMM (docs/gemm.md): 128x256x64, 4 stages, 2 consumer
  // warpgroups + 1 producer, persistent, groupM 8, TMA.
  CHECK(d.blockSizes == std::vector<int64_t>{128, 256, 64});
  CHECK(d.loopOrders.empty());
  CHECK(d.l2Groupings == std::vector<int>{8});
  CHECK(d.rangeUnrollFactors.empty()); // the K loop is the template's: nothing to unroll
  CHECK(spec.unrollLoops.empty());
  CHECK(d.numWarps == 12);
  CHECK(d.numStages == 4);
  CHECK(d.pidType == PidType::PersistentInterleaved);
  CHECK(validate(d, spec).empty());

  SizeHints small;
  small.blockSizes[0] = 10; // m = 10: tm at most 16
  ConfigSpec smallSpec = ConfigSpec::fromKernel(test::matmulKernel(), small);
  CHECK(smallSpec.blockSizes[0].max == 16);
  CHECK(smallSpec.defaultConfig().blockSizes[0] == 16);
  CHECK(smallSpec.blockSizeChoices(0) == std::vector<int64_t>{1, 2, 4, 8, 16});
}

TEST_CASE("a fixed block size is not in the config; a shared one appears once", "[spec]") {
  SizeHints hints;
  hints.blockSizes[1] = 4096;
  ConfigSpec spec = ConfigSpec::fromKernel(test::twoPassKernel(), hints);
  REQUIRE(spec.blockSizes.size() == 1);
  CHECK(spec.blockSizes[0].name == "block_n");
  CHECK(spec.blockSizes[0].declId == 1);
  CHECK(spec.blockSizes[0].min == 16);
  CHECK(spec.blockSizes[0].max == 1024);
  CHECK_FALSE(spec.blockSizes[0].inGridLoop);
  CHECK(spec.innerLoops.size() == 2);
  CHECK(spec.multiTileLoops.empty());
  CHECK(spec.reductionLoops.empty());
  CHECK(spec.fixedGridElements == 16);
  CHECK(spec.numSites == 3);
  CHECK(spec.numLoadSites == 2);

  Config d = spec.defaultConfig();
  CHECK(d.blockSizes == std::vector<int64_t>{1024}); // the whole row, up to block_n's max
  CHECK(d.rangeUnrollFactors.size() == 2);
  CHECK(d.numWarps == 16); // 16 rows x 1024 columns: one warp per 1024 elements
  CHECK(validate(d, spec).empty());

  hints.blockSizes[1] = 40; // n = 40: block_n at most 64
  ConfigSpec narrow = ConfigSpec::fromKernel(test::twoPassKernel(), hints);
  CHECK(narrow.blockSizes[0].max == 64);
  CHECK(narrow.defaultConfig().blockSizes == std::vector<int64_t>{64});
}

TEST_CASE("a constant size hint in the IR is used when no hint is given", "[spec]") {
  ir::Kernel k = test::softmaxKernel(false);
  k.blockSizes[0].sizeHint = ir::makeConst(100, true);
  ConfigSpec spec = ConfigSpec::fromKernel(k);
  CHECK(spec.blockSizes[0].max == 128);
  CHECK(spec.defaultConfig().blockSizes[0] == 128);
}

TEST_CASE("tile loops are numbered in pre-order", "[sites]") {
  std::vector<LoopInfo> loops = tileLoops(test::twoPassKernel());
  REQUIRE(loops.size() == 3);
  CHECK(loops[0].isGrid);
  CHECK(loops[0].tiles == std::vector<int>{0});
  CHECK_FALSE(loops[1].isGrid);
  CHECK(loops[1].tiles == std::vector<int>{1});
  CHECK(loops[2].tiles == std::vector<int>{2});
  CHECK(loops[2].depth == 1);
}

TEST_CASE("load/store sites: pre-order statements, operands before the node", "[sites]") {
  std::vector<Site> mm = loadStoreSites(test::matmulKernel());
  REQUIRE(mm.size() == 3);
  CHECK((mm[0].kind == Site::Kind::Load && mm[0].param == 0 && mm[0].loadIndex == 0));
  CHECK((mm[1].kind == Site::Kind::Load && mm[1].param == 1 && mm[1].loadIndex == 1));
  CHECK((mm[2].kind == Site::Kind::Store && mm[2].param == 2 && mm[2].loadIndex == -1));
  CHECK(mm[2].index == 2);

  // store out[load idx[tm]] = load x[tm] + load x[tm] (the same node twice):
  // the index's load, then the value's load (once), then the store.
  ir::Kernel k = test::softmaxKernel(false);
  ir::ExprRef idx = ir::makeLoad(1, {ir::Index::ofTile(0)});
  ir::ExprRef x = ir::makeLoad(0, {ir::Index::ofTile(0)});
  auto st = std::make_shared<ir::Stmt>();
  st->kind = ir::StmtKind::Store;
  st->param = 1;
  st->indices = {ir::Index::gather(idx)};
  st->value = ir::makeBinary(ir::BinaryOp::Add, x, x);
  auto loop = std::make_shared<ir::Stmt>(*k.body[0]);
  loop->body = {st};
  k.body = {loop};
  std::vector<Site> sites = loadStoreSites(k);
  REQUIRE(sites.size() == 3);
  CHECK(sites[0].load == idx.get());
  CHECK(sites[1].load == x.get());
  CHECK(sites[2].store == st.get());
}

TEST_CASE("validate reports lengths and every bad entry", "[validate]") {
  ConfigSpec spec = ConfigSpec::fromKernel(test::tiledKernel());
  Config c = spec.defaultConfig();
  c.blockSizes = {64, 48, 0};
  c.loopOrders = {{1, 1}};
  c.numWarps = 3;
  c.numStages = 9;
  c.maxnreg = 16;
  c.vectorBytes = 2;
  c.indexing.pop_back();
  CHECK(errorPaths(c, spec) ==
        std::vector<std::string>{
            "block_sizes[1]: expected a power of two, got 48",
            "block_sizes[2]: expected a power of two, got 0",
            "loop_orders[0]: expected a permutation of 0..1 (tiles tm, tn), got [1, 1]",
            "num_warps: expected a power of two in [1, 32], got 3",
            "num_stages: expected an integer in [1, 8], got 9",
            "maxnreg: expected null or an integer in [32, 255], got 16",
            "indexing: expected 3 entries (one per load/store site), got 2",
            "vector_bytes: expected one of 0, 4, 8, 16, got 2"});
}

TEST_CASE("formatSpec lists each key, its entries and the default config", "[spec]") {
  std::string text = formatSpec(ConfigSpec::fromKernel(test::tiledKernel()));
  CHECK_THAT(text, Catch::Contains("config spec of kernel 'tiled' (3 load/store sites, 2 load sites)"));
  CHECK_THAT(text, Catch::Contains("[2] tk"));
  CHECK_THAT(text, Catch::Contains("loop_orders"));
  CHECK_THAT(text, Catch::Contains("[0] (tm, tn)"));
  CHECK_THAT(text, Catch::Contains("pid_type"));
  CHECK_THAT(text, Catch::Contains("flat | xyz | persistent_blocked | persistent_interleaved"));
  CHECK_THAT(text, Catch::Contains("default config:\n{\"block_sizes\": [1, 1, 4096], "
                                   "\"loop_orders\": [[0, 1]]"));
  CHECK_THAT(text, !Catch::Contains("reduction_loops"));

  // A matmul lists only what its template takes.
  text = formatSpec(ConfigSpec::fromKernel(test::matmulKernel()));
  CHECK_THAT(text, Catch::Contains("config spec of kernel 'matmul' (3 load/store sites, 2 load sites)"));
  CHECK_THAT(text, Catch::Contains("powers of two in [64, 256]"));
  CHECK_THAT(text, Catch::Contains("num_warps               warps per program: 8 | 12"));
  for (const char* key : {"loop_orders", "num_sm_multiplier", "maxnreg", "load_eviction_policies",
                          "vector_bytes", "reduction_loops"})
    CHECK_THAT(text, !Catch::Contains(key));
  CHECK_THAT(text, Catch::Contains("default config:\n{\"block_sizes\": [128, 256, 64], "
                                   "\"l2_groupings\": [8]"));
}

TEST_CASE("size hints are evaluated from tensor sizes and scalar values", "[spec]") {
  ir::Kernel k = test::softmaxKernel();
  ir::Param m;
  m.kind = ir::Param::Kind::Scalar;
  m.name = "m";
  m.scalarType = ir::ScalarType::I64;
  m.captured = true;
  k.params.push_back(m);
  k.blockSizes[0].sizeHint = ir::makeParamRef(2);
  SizeHints h = sizeHintsFor(k, {{"x", {4096, 8192}}}, {{"m", 4000}});
  CHECK(h.blockSizes == std::map<int, int64_t>{{0, 4000}});
  CHECK(h.axes == std::map<int, int64_t>{{0, 8192}});
  ConfigSpec spec = ConfigSpec::fromKernel(k, h);
  CHECK(spec.blockSizes[0].max == 4096);
  CHECK(spec.reductionLoops[0].maxChunk == 4096);

  // An unknown scalar leaves that hint out; `end - begin` and tensor sizes evaluate.
  CHECK(sizeHintsFor(k, {{"x", {4096, 8192}}}).blockSizes.empty());
  auto size = std::make_shared<ir::Expr>();
  size->kind = ir::ExprKind::TensorSize;
  size->param = 0;
  size->dim = 0;
  k.blockSizes[0].sizeHint = ir::makeBinary(ir::BinaryOp::Sub, size, ir::makeConst(96, true));
  CHECK(sizeHintsFor(k, {{"x", {4096, 8192}}}).blockSizes == std::map<int, int64_t>{{0, 4000}});
}
