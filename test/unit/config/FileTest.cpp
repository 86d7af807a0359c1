// Config files: the three forms, error paths inside them, selection by shape.
#include "TestKernels.h"
#include "helion/Config/ConfigJson.h"
#include "helion/hl/dtype.h"

#include <catch2/catch.hpp>

using namespace helion;
using namespace helion::config;
using json = nlohmann::json;
using Errors = std::vector<std::string>;

namespace {

ConfigSpec softmaxSpec() { return ConfigSpec::fromKernel(test::softmaxKernel()); }

ConfigFile fileOk(const char* text, const ConfigSpec& spec) {
  Parsed<ConfigFile> p = parseConfigFile(json::parse(text), spec, "tuned.json");
  INFO(text);
  REQUIRE(p.errors == Errors{});
  REQUIRE(p.ok());
  return *p.value;
}

Errors fileErrors(const char* text, const ConfigSpec& spec) {
  Parsed<ConfigFile> p = parseConfigFile(json::parse(text), spec, "tuned.json");
  CHECK_FALSE(p.ok());
  return p.errors;
}

const char* kShaped = R"({"configs": [
  {"shapes": {"x": [4096, 4096]}, "config": {"num_warps": 4}},
  {"shapes": {"x": [64, 65536]}, "config": {"num_warps": 16, "reduction_loops": [2048]}},
  {"shapes": {"x": [1024, 1024]}, "config": {"num_warps": 2}}
]})";

} // namespace

TEST_CASE("a file with one config object", "[file]") {
  ConfigFile f = fileOk(R"({"num_warps": 2})", softmaxSpec());
  REQUIRE(f.entries.size() == 1);
  CHECK(f.entries[0].shapes.empty());
  CHECK(f.entries[0].config.numWarps == 2);
  CHECK(selectConfig(f, {{"x", {7, 7}}}).config.numWarps == 2);
}

TEST_CASE("configs keyed by shape: exact match, else nearest by log2 distance", "[file]") {
  ConfigFile f = fileOk(kShaped, softmaxSpec());
  REQUIRE(f.entries.size() == 3);
  CHECK(f.entries[1].config.reductionLoops[0] == std::optional<int64_t>(2048));

  CHECK(selectConfig(f, {{"x", {4096, 4096}}}).config.numWarps == 4);
  CHECK(selectConfig(f, {{"x", {1024, 1024}}, {"out", {1024, 1024}}}).config.numWarps == 2);
  // [2048, 2048]: distance 2 to both 4096² and 1024²; the first in the file wins the tie.
  CHECK(selectConfig(f, {{"x", {2048, 2048}}}).config.numWarps == 4);
  // [1500, 1024]: 0.55 from 1024², 2.45 from 4096².
  CHECK(selectConfig(f, {{"x", {1500, 1024}}}).config.numWarps == 2);
  // [128, 32768]: 2 from [64, 65536], 6 from 4096², 8 from 1024².
  CHECK(selectConfig(f, {{"x", {128, 32768}}}).config.numWarps == 16);
  CHECK(*shapeDistance({{"x", {4096, 1024}}}, {{"x", {4096, 4096}}}) == Approx(2.0));
  CHECK_FALSE(shapeDistance({{"y", {4096}}}, {{"x", {4096}}}).has_value());
  CHECK_FALSE(shapeDistance({{"x", {4096}}}, {{"x", {4096, 1}}}).has_value());
}

TEST_CASE("entries that do not compare fall back to an unshaped entry", "[file]") {
  ConfigFile f = fileOk(R"({"configs": [
      {"shapes": {"x": [4096, 4096]}, "config": {"num_warps": 4}},
      {"config": {"num_warps": 1}}]})",
                        softmaxSpec());
  CHECK(selectConfig(f, {{"x", {4096}}}).config.numWarps == 1);
  CHECK(selectConfig(f, {{"x", {4096, 4000}}}).config.numWarps == 4);
}

TEST_CASE("one file for several kernels", "[file]") {
  const char* text = R"({"kernels": {
      "matmul": {"block_sizes": [128, 128, 64]},
      "softmax": {"configs": [{"shapes": {"x": [8, 8]}, "config": {"num_warps": 1}}]}}})";
  ConfigFile sm = fileOk(text, softmaxSpec());
  REQUIRE(sm.entries.size() == 1);
  CHECK(sm.entries[0].config.numWarps == 1);
  ConfigFile mm = fileOk(text, ConfigSpec::fromKernel(test::matmulKernel()));
  CHECK(mm.entries[0].config.blockSizes == std::vector<int64_t>{128, 128, 64});

  // Or a `kernel` key on each entry of a shared list.
  ConfigFile tagged = fileOk(R"({"configs": [
      {"kernel": "matmul", "shapes": {"x": [8, 8]}, "config": {"block_sizes": [16, 16, 16]}},
      {"kernel": "softmax", "shapes": {"x": [8, 8]}, "config": {"num_warps": 2}}]})",
                             softmaxSpec());
  REQUIRE(tagged.entries.size() == 1);
  CHECK(tagged.entries[0].config.numWarps == 2);

  CHECK(fileErrors(R"({"kernels": {"add": {}, "matmul": {}}})", softmaxSpec()) ==
        Errors{"tuned.json: kernels: no config for kernel 'softmax' (the file has 'add', 'matmul')"});
  CHECK(fileErrors(R"({"configs": [{"kernel": "add", "config": {}}]})", softmaxSpec()) ==
        Errors{"tuned.json: configs: no entry for kernel 'softmax'"});
}

TEST_CASE("errors inside a file name the full path", "[file]") {
  CHECK(fileErrors(R"({"configs": [
      {"shapes": {"x": [4096, 4096]}, "config": {"num_warps": 4}},
      {"shapes": {"x": [64, -1]}, "confg": {}, "config": {"num_warps": 3, "blok_sizes": [1]}}]})",
                   softmaxSpec()) ==
        Errors{"tuned.json: configs[1]: unknown key 'confg'; did you mean 'config'?",
               "tuned.json: configs[1].shapes.x[1]: expected a size (an integer >= 0), got -1",
               "tuned.json: configs[1].config: unknown key 'blok_sizes'; did you mean "
               "'block_sizes'?",
               "tuned.json: configs[1].config.num_warps: expected a power of two in [1, 32], got 3"});
  CHECK(fileErrors(R"({"kernels": {"softmax": {"num_warps": 0}}})", softmaxSpec()) ==
        Errors{"tuned.json: kernels.softmax.num_warps: expected a power of two in [1, 32], got 0"});
  CHECK(fileErrors(R"({"configs": []})", softmaxSpec()) ==
        Errors{"tuned.json: configs: expected a non-empty list of {\"shapes\", \"config\"} "
               "objects, got []"});
  CHECK(fileErrors(R"({"kernels": {}, "configs": []})", softmaxSpec()) ==
        Errors{"tuned.json: unknown key 'configs'"});
}

TEST_CASE("entries keyed by dtypes compete only for those dtypes", "[file][dtypes]") {
  ConfigFile f = fileOk(R"({"configs": [
      {"shapes": {"x": [4096, 4096]}, "dtypes": {"x": "f32"}, "config": {"num_warps": 4}},
      {"shapes": {"x": [4096, 4096]}, "dtypes": {"x": "bf16"}, "config": {"num_warps": 8}},
      {"shapes": {"x": [1024, 1024]}, "config": {"num_warps": 2}},
      {"dtypes": {"x": "f16"}, "config": {"num_warps": 16}}]})",
                        softmaxSpec());
  REQUIRE(f.entries.size() == 4);
  CHECK(f.entries[1].dtypes == Dtypes{{"x", "bf16"}});
  CHECK(f.entries[2].dtypes.empty());
  // The same shape: each dtype gets its own entry; without dtypes the first.
  CHECK(selectConfig(f, {{"x", {4096, 4096}}}, {{"x", "f32"}}).config.numWarps == 4);
  CHECK(selectConfig(f, {{"x", {4096, 4096}}}, {{"x", "bf16"}}).config.numWarps == 8);
  CHECK(selectConfig(f, {{"x", {4096, 4096}}}).config.numWarps == 2);
  // Nearest among the entries of the call's dtypes and those that name none.
  CHECK(selectConfig(f, {{"x", {3000, 3000}}}, {{"x", "bf16"}}).config.numWarps == 8);
  CHECK(selectConfig(f, {{"x", {2000, 2000}}}, {{"x", "bf16"}}).config.numWarps == 2);
  // f16: shaped entries of any dtype ([1024, 1024]) come before its unshaped one.
  CHECK(selectConfig(f, {{"x", {4096, 4096}}}, {{"x", "f16"}}).config.numWarps == 2);
}

TEST_CASE("an unshaped entry of the call's dtypes, else entry 0", "[file][dtypes]") {
  ConfigFile f = fileOk(R"({"configs": [
      {"dtypes": {"x": "f32"}, "config": {"num_warps": 4}},
      {"dtypes": {"x": "bf16"}, "config": {"num_warps": 8}}]})",
                        softmaxSpec());
  CHECK(selectConfig(f, {{"x", {64, 64}}}, {{"x", "bf16"}}).config.numWarps == 8);
  CHECK(selectConfig(f, {{"x", {64, 64}}}, {{"x", "f32"}}).config.numWarps == 4);
  CHECK(selectConfig(f, {{"x", {64, 64}}}, {{"x", "f16"}}).config.numWarps == 4);
}

TEST_CASE("without an entry of the call's dtypes, the nearest shape of any", "[file][dtypes]") {
  // A file tuned for bf16 at two shapes: an f16 call takes the entry of its own shape,
  // not entry 0 (flash attention: the head-dim-64 entry ran head dim 128 at 0.56x).
  ConfigFile f = fileOk(R"({"configs": [
      {"shapes": {"x": [2048, 64]}, "dtypes": {"x": "bf16"}, "config": {"num_warps": 16}},
      {"shapes": {"x": [4096, 128]}, "dtypes": {"x": "bf16"}, "config": {"num_warps": 8}}]})",
                        softmaxSpec());
  CHECK(selectConfig(f, {{"x", {4096, 128}}}, {{"x", "f16"}}).config.numWarps == 8);
  CHECK(selectConfig(f, {{"x", {3000, 100}}}, {{"x", "f16"}}).config.numWarps == 8);
  CHECK(selectConfig(f, {{"x", {2048, 64}}}, {{"x", "f16"}}).config.numWarps == 16);
  // An unshaped entry of the call's dtypes still comes first.
  ConfigFile g = fileOk(R"({"configs": [
      {"shapes": {"x": [4096, 128]}, "dtypes": {"x": "bf16"}, "config": {"num_warps": 8}},
      {"dtypes": {"x": "f16"}, "config": {"num_warps": 2}}]})",
                        softmaxSpec());
  CHECK(selectConfig(g, {{"x", {4096, 128}}}, {{"x", "f16"}}).config.numWarps == 2);
}

TEST_CASE("dtype names follow helion::DType's order", "[file][dtypes]") {
  const std::vector<std::string>& names = dtypeNames();
  REQUIRE(names.size() == 11);
  for (size_t i = 0; i < names.size(); ++i)
    CHECK(names[i] == std::string(dtype_name(static_cast<DType>(i))));
}

TEST_CASE("errors in a dtypes key", "[file][dtypes]") {
  CHECK(fileErrors(R"({"configs": [
      {"dtypes": {"x": "bfloat16"}, "config": {"num_warps": 4}},
      {"dtypes": ["bf16"], "config": {"num_warps": 4}}]})",
                   softmaxSpec()) ==
        Errors{"tuned.json: configs[0].dtypes.x: expected a dtype (f16 bf16 f32 f64 i8 i32 i64 "
               "b8 u8 f8e4m3 f8e5m2), got \"bfloat16\"",
               "tuned.json: configs[1].dtypes: expected an object of tensor dtypes, got "
               "[\"bf16\"]"});
}
