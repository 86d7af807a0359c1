// JSON <-> Config: round trips, every validation message (path + rule), legacy spellings.
#include "TestKernels.h"
#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"

#include <catch2/catch.hpp>

using namespace helion;
using namespace helion::config;
using json = nlohmann::json;
using Errors = std::vector<std::string>;

namespace {

ConfigSpec matmulSpec() { return ConfigSpec::fromKernel(test::matmulKernel()); }
/// The matmul's loops without hl::dot: every key of the generic emitter.
ConfigSpec tiledSpec() { return ConfigSpec::fromKernel(test::tiledKernel()); }

ConfigSpec softmaxSpec() {
  SizeHints h;
  h.blockSizes[0] = 4096;
  h.axes[0] = 8192;
  return ConfigSpec::fromKernel(test::softmaxKernel(), h);
}

Errors errorsOf(const char* text, const ConfigSpec& spec) {
  Parsed<Config> p = parseConfig(json::parse(text), spec, "best.json");
  CHECK(p.ok() == p.errors.empty());
  return p.errors;
}

Config parsedOk(const char* text, const ConfigSpec& spec) {
  Parsed<Config> p = parseConfig(json::parse(text), spec, "best.json");
  INFO(text);
  REQUIRE(p.errors == Errors{});
  REQUIRE(p.ok());
  return *p.value;
}

} // namespace

TEST_CASE("missing keys take the default config's values", "[json]") {
  ConfigSpec spec = tiledSpec();
  CHECK(parsedOk("{}", spec) == spec.defaultConfig());
  Config c = parsedOk(R"({"num_warps": 8, "block_sizes": [128, 64, 16]})", spec);
  Config want = spec.defaultConfig();
  want.numWarps = 8;
  want.blockSizes = {128, 64, 16};
  CHECK(c == want);
}

TEST_CASE("toJson prints the keys the kernel has, in Helion's order", "[json]") {
  ConfigSpec spec = matmulSpec();
  // A matmul's template takes no loop order, eviction hint, register limit, vector
  // width or programs per SM: its spec has none of them.
  CHECK(formatConfig(spec.defaultConfig(), spec) ==
        R"({"block_sizes": [128, 256, 64], "l2_groupings": [8], )"
        R"("num_warps": 12, "num_stages": 4, "pid_type": "persistent_interleaved", )"
        R"("indexing": "tensor_descriptor"})");
  ConfigSpec tiled = tiledSpec();
  CHECK(formatConfig(tiled.defaultConfig(), tiled) ==
        R"({"block_sizes": [1, 1, 4096], "loop_orders": [[0, 1]], "l2_groupings": [1], )"
        R"("range_unroll_factors": [0], "num_warps": 8, "pid_type": "flat", )"
        R"("num_sm_multiplier": 1, "indexing": "pointer", "load_eviction_policies": ["", ""], )"
        R"("vector_bytes": 0})");
  ConfigSpec sm = softmaxSpec();
  Config c = sm.defaultConfig();
  c.reductionLoops = {1024};
  c.indexing = {Indexing::BlockPtr, Indexing::Pointer};
  c.maxnreg = 128;
  CHECK(formatConfig(c, sm) ==
        R"({"block_sizes": [1], "reduction_loops": [1024], "num_warps": 8, "num_stages": 1, )"
        R"("pid_type": "flat", "num_sm_multiplier": 1, "maxnreg": 128, )"
        R"("indexing": ["block_ptr", "pointer"], "load_eviction_policies": [""], "vector_bytes": 0})");
}

TEST_CASE("JSON round trip of default and random configs", "[json]") {
  std::mt19937_64 rng(7);
  for (const ConfigSpec& spec : {matmulSpec(), tiledSpec(), softmaxSpec(),
                                 ConfigSpec::fromKernel(test::twoPassKernel())}) {
    std::vector<Config> configs = {spec.defaultConfig()};
    for (int i = 0; i < 100; ++i)
      configs.push_back(randomConfig(spec, rng));
    for (const Config& c : configs) {
      std::string text = toJson(c, spec).dump();
      INFO(text);
      Parsed<Config> back = parseConfig(json::parse(text), spec, "rt.json");
      CHECK(back.errors == Errors{});
      REQUIRE(back.ok());
      CHECK(*back.value == c);
    }
  }
}

TEST_CASE("validation messages name the JSON path and the rule", "[json]") {
  ConfigSpec mm = tiledSpec();
  CHECK(errorsOf(R"({"block_sizes": [64, 48, 32]})", mm) ==
        Errors{"best.json: block_sizes[1]: expected a power of two, got 48"});
  CHECK(errorsOf(R"({"blok_sizes": [64, 64, 32]})", mm) ==
        Errors{"best.json: unknown key 'blok_sizes'; did you mean 'block_sizes'?"});
  CHECK(errorsOf(R"({"num_warp": 4, "colour": 1})", mm) ==
        Errors{"best.json: unknown key 'colour'",
               "best.json: unknown key 'num_warp'; did you mean 'num_warps'?"});
  CHECK(errorsOf(R"({"block_sizes": [64, 64, 32, 16]})", mm) ==
        Errors{"best.json: block_sizes: expected 3 entries (one per tunable block size: tm, tn, "
               "tk), got 4"});
  CHECK(errorsOf(R"({"loop_orders": [[0, 1], [1, 0]], "l2_groupings": [3]})", mm) ==
        Errors{"best.json: loop_orders: expected 1 entry (one per tile loop of 2 or more tiles: "
               "(tm, tn)), got 2",
               "best.json: l2_groupings[0]: expected a power of two in [1, 64], got 3"});
  CHECK(errorsOf(R"({"loop_orders": [[0, 2]], "range_unroll_factors": [0, 1]})", mm) ==
        Errors{"best.json: loop_orders[0]: expected a permutation of 0..1 (tiles tm, tn), got [0, 2]",
               "best.json: range_unroll_factors: expected 1 entry (one per inner tile loop: "
               "(tk)), got 2"});
  ConfigSpec matmul = matmulSpec();
  CHECK(errorsOf(R"({"loop_orders": [[1, 0]], "range_unroll_factors": [0]})", matmul) ==
        Errors{"best.json: loop_orders: expected 0 entries (the kernel has no tile loop of 2 or "
               "more tiles), got 1",
               "best.json: range_unroll_factors: expected 0 entries (a tensor-core kernel's loops "
               "are unrolled by its template), got 1"});
  // Keys that never changed the generated code are gone, with a reason.
  CHECK(errorsOf(R"({"flatten_loops": [true], "range_num_stages": [2]})", mm) ==
        Errors{"best.json: 'flatten_loops' is not a config key: it never changed the generated "
               "code, and was removed",
               "best.json: 'range_num_stages' is not a config key: it never changed the generated "
               "code, and was removed"});
  CHECK(errorsOf(R"({"indexing": ["pointer", "tma", "block_ptr"]})", mm) ==
        Errors{"best.json: indexing[1]: expected one of 'pointer', 'block_ptr', "
               "'tensor_descriptor', got \"tma\""});
  CHECK(errorsOf(R"({"indexing": ["pointer"]})", mm) ==
        Errors{"best.json: indexing: expected 3 entries (one per load/store site), got 1"});
  CHECK(errorsOf(R"({"load_eviction_policies": ["first", "never"]})", mm) ==
        Errors{"best.json: load_eviction_policies[1]: expected one of '', 'first', 'last', got "
               "\"never\""});
  CHECK(errorsOf(R"({"reduction_loops": [null]})", mm) ==
        Errors{"best.json: reduction_loops: expected 0 entries (the kernel has no reduction "
               "axis), got 1"});
  CHECK(errorsOf("[1, 2]", mm) == Errors{"best.json: expected a config object, got [1,2]"});

  ConfigSpec sm = softmaxSpec();
  CHECK(errorsOf(R"({"block_sizes": [8192], "reduction_loops": [8192]})", sm) ==
        Errors{"best.json: block_sizes[0]: expected at most 4096 (the next power of two of the "
               "extent 4096 of 'tm'), got 8192",
               "best.json: reduction_loops[0]: expected null (persistent) or a power of two at "
               "most 4096 (below the extent 8192 of axis a0 (x.size(1))), got 8192"});
  ConfigSpec twoPass = ConfigSpec::fromKernel(test::twoPassKernel());
  CHECK(errorsOf(R"({"block_sizes": [8], "loop_orders": [[0]]})", twoPass) ==
        Errors{"best.json: block_sizes[0]: expected at least 16 (the minimum of 'block_n'), got 8",
               "best.json: loop_orders: expected 0 entries (the kernel has no tile loop of 2 or "
               "more tiles), got 1"});
}

TEST_CASE("wrong JSON types are reported, and every error at once", "[json]") {
  ConfigSpec mm = tiledSpec();
  CHECK(errorsOf(R"({"num_warps": "4", "block_sizes": 64,
                     "reduction_loops": {}, "pid_type": 1, "maxnreg": 1.5, "blk": 0,
                     "num_stages": 0, "loop_orders": [[0, "1"]]})",
                 mm) ==
        Errors{"best.json: unknown key 'blk'",
               "best.json: block_sizes: expected a list, got 64",
               "best.json: loop_orders[0][1]: expected an integer, got \"1\"",
               "best.json: reduction_loops: expected a list, got {}",
               "best.json: num_warps: expected an integer, got \"4\"",
               "best.json: pid_type: expected one of 'flat', 'xyz', 'persistent_blocked', "
               "'persistent_interleaved', got 1",
               "best.json: maxnreg: expected null or an integer, got 1.5",
               "best.json: num_stages: expected an integer in [1, 8], got 0"});
}

TEST_CASE("the seed README's spellings are accepted", "[json][legacy]") {
  ConfigSpec mm = tiledSpec();
  Config nested = parsedOk(R"({"block_sizes": [[128, 64], [16]]})", mm);
  CHECK(nested.blockSizes == std::vector<int64_t>{128, 64, 16});
  CHECK(errorsOf(R"({"block_sizes": [[128, 48], [16]]})", mm) ==
        Errors{"best.json: block_sizes[0][1]: expected a power of two, got 48"});
  CHECK(errorsOf(R"({"block_sizes": [[128, 64]]})", mm) ==
        Errors{"best.json: block_sizes: expected 3 entries (one per tunable block size: tm, tn, "
               "tk), got 2"});

  CHECK(parsedOk(R"({"l2_grouping": 8})", mm).l2Groupings == std::vector<int>{8});
  CHECK(errorsOf(R"({"l2_grouping": 3})", mm) ==
        Errors{"best.json: l2_grouping: expected a power of two in [1, 64], got 3"});
  CHECK(errorsOf(R"({"l2_grouping": 4, "l2_groupings": [4]})", mm) ==
        Errors{"best.json: l2_grouping: cannot be combined with 'l2_groupings'"});
  CHECK(errorsOf(R"({"l2_grouping": 4})", softmaxSpec()) ==
        Errors{"best.json: l2_grouping: expected 1: the kernel has no grid loop of 2 or more "
               "tiles, got 4"});
  CHECK(parsedOk(R"({"l2_grouping": 1})", softmaxSpec()) == softmaxSpec().defaultConfig());

  CHECK(parsedOk(R"({"use_yz_grid": true})", mm).pidType == PidType::Xyz);
  // false keeps the default pid type.
  CHECK(parsedOk(R"({"use_yz_grid": false})", mm).pidType == mm.defaultConfig().pidType);
  CHECK(parsedOk(R"({"use_yz_grid": true, "pid_type": "xyz"})", mm).pidType == PidType::Xyz);
  CHECK(errorsOf(R"({"use_yz_grid": true, "pid_type": "flat"})", mm) ==
        Errors{"best.json: use_yz_grid: conflicts with pid_type 'flat'"});
  CHECK(errorsOf(R"({"use_yz_grid": "yes"})", mm) ==
        Errors{"best.json: use_yz_grid: expected true or false, got \"yes\""});

  // A kernel with two grid loops has no xyz mapping: the error names what the user wrote.
  ir::Kernel two = test::softmaxKernel(false);
  two.body.push_back(two.body[0]);
  CHECK(errorsOf(R"({"use_yz_grid": true})", ConfigSpec::fromKernel(two)) ==
        Errors{"best.json: use_yz_grid: expected one of 'flat', 'persistent_blocked', "
               "'persistent_interleaved' (xyz needs a single grid loop of at most 3 tiles), got "
               "'xyz'"});
}

TEST_CASE("indexing: one value for all sites or one per site", "[json]") {
  ConfigSpec mm = tiledSpec();
  CHECK(parsedOk(R"({"indexing": "tensor_descriptor"})", mm).indexing ==
        std::vector<Indexing>(3, Indexing::TensorDescriptor));
  CHECK(parsedOk(R"({"indexing": ["pointer", "block_ptr", "tensor_descriptor"]})", mm).indexing ==
        std::vector<Indexing>{Indexing::Pointer, Indexing::BlockPtr, Indexing::TensorDescriptor});
}
