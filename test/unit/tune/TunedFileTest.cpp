// Merging tuning results into config files; the output is read back by the config
// file parser of lib/Config.
#include "helion/Tune/TunedFile.h"
#include "TestKernels.h"
#include "helion/Tune/AtomicFile.h"

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace helion;
using namespace helion::tune;
using ojson = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

config::ConfigSpec softmaxSpec() {
  return config::ConfigSpec::fromKernel(config::test::softmaxKernel());
}
config::ConfigSpec matmulSpec() {
  return config::ConfigSpec::fromKernel(config::test::matmulKernel());
}

TunedEntry softmaxResult(std::vector<int64_t> sizes, int warps) {
  config::ConfigSpec spec = softmaxSpec();
  config::Config c = spec.defaultConfig();
  c.numWarps = warps;
  return {"softmax", nlohmann::json{{"x", sizes}}, config::toJson(c, spec)};
}

TunedEntry matmulResult(int64_t n, int stages) {
  config::ConfigSpec spec = matmulSpec();
  config::Config c = spec.defaultConfig();
  c.numStages = stages;
  return {"matmul", nlohmann::json{{"x", {n, n}}, {"y", {n, n}}}, config::toJson(c, spec)};
}

ojson merge(const std::optional<std::string> &existing, const std::vector<TunedEntry> &results,
            const std::string &untagged = "softmax") {
  std::optional<ojson> j;
  if (existing)
    j = ojson::parse(*existing);
  auto m = mergeTunedFile(j, results, untagged, "best.json");
  INFO((m.errors.empty() ? "" : m.errors.front()));
  REQUIRE(m.ok());
  return *m.value;
}

/// The file as `helionc compile --config` reads it for `spec`'s kernel.
config::ConfigFile parse(const ojson &file, const config::ConfigSpec &spec) {
  std::vector<std::string> errors;
  auto j = config::parseJsonText(file.dump(), "best.json", errors);
  REQUIRE(j);
  auto parsed = config::parseConfigFile(*j, spec, "best.json");
  INFO((parsed.errors.empty() ? "" : parsed.errors.front()));
  REQUIRE(parsed.ok());
  return *parsed.value;
}

int warpsFor(const config::ConfigFile &f, std::vector<int64_t> sizes) {
  return config::selectConfig(f, {{"x", sizes}}).config.numWarps;
}

} // namespace

TEST_CASE("a new file holds the results of one kernel as a configs list", "[tunedfile]") {
  ojson out =
      merge(std::nullopt, {softmaxResult({4096, 4096}, 8), softmaxResult({64, 131072}, 16)});
  REQUIRE(out.contains("configs"));
  CHECK(out["configs"].size() == 2);
  CHECK(out["configs"][0]["kernel"] == "softmax");
  CHECK(out["configs"][0]["shapes"] == ojson::parse(R"({"x": [4096, 4096]})"));
  config::ConfigFile f = parse(out, softmaxSpec());
  CHECK(warpsFor(f, {4096, 4096}) == 8);
  CHECK(warpsFor(f, {64, 131072}) == 16);
}

TEST_CASE("the same kernel and shape is replaced in place, other shapes kept", "[tunedfile]") {
  ojson first = merge(std::nullopt, {softmaxResult({4096, 4096}, 8), softmaxResult({1, 1}, 2)});
  ojson second = merge(first.dump(), {softmaxResult({4096, 4096}, 32), softmaxResult({8, 8}, 1)});
  REQUIRE(second["configs"].size() == 3);
  CHECK(second["configs"][0]["config"]["num_warps"] == 32); // replaced where it was
  CHECK(second["configs"][1]["config"]["num_warps"] == 2);
  CHECK(second["configs"][2]["config"]["num_warps"] == 1);
  config::ConfigFile f = parse(second, softmaxSpec());
  CHECK(warpsFor(f, {4096, 4096}) == 32);
  CHECK(warpsFor(f, {1, 1}) == 2);
}

TEST_CASE("shapes match whatever the key order", "[tunedfile]") {
  TunedEntry a = matmulResult(1024, 3);
  ojson first = merge(std::nullopt, {a}, "matmul");
  TunedEntry b = a;
  b.shapes = nlohmann::json::parse(R"({"y": [1024, 1024], "x": [1024, 1024]})");
  b.config["num_stages"] = 2;
  ojson second = merge(first.dump(), {b}, "matmul");
  REQUIRE(second["configs"].size() == 1);
  CHECK(second["configs"][0]["config"]["num_stages"] == 2);
}

TEST_CASE("results for other dtypes at the same shapes are kept beside each other",
          "[tunedfile][dtypes]") {
  TunedEntry f32 = softmaxResult({4096, 4096}, 4);
  f32.dtypes = nlohmann::json{{"x", "f32"}};
  TunedEntry bf16 = softmaxResult({4096, 4096}, 8);
  bf16.dtypes = nlohmann::json{{"x", "bf16"}};
  ojson first = merge(std::nullopt, {f32});
  ojson second = merge(first.dump(), {bf16});
  REQUIRE(second["configs"].size() == 2);
  CHECK(second["configs"][0]["dtypes"]["x"] == "f32");
  CHECK(second["configs"][1]["dtypes"]["x"] == "bf16");
  // Tuning bf16 again replaces its entry only.
  bf16.config["num_warps"] = 16;
  ojson third = merge(second.dump(), {bf16});
  REQUIRE(third["configs"].size() == 2);
  CHECK(third["configs"][0]["config"]["num_warps"] == 4);
  CHECK(third["configs"][1]["config"]["num_warps"] == 16);
  config::ConfigFile f = parse(third, softmaxSpec());
  CHECK(config::selectConfig(f, {{"x", {4096, 4096}}}, {{"x", "bf16"}}).config.numWarps == 16);
  CHECK(config::selectConfig(f, {{"x", {4096, 4096}}}, {{"x", "f32"}}).config.numWarps == 4);
  // An entry without dtypes (an older file) is another key: kept, not replaced.
  ojson old = merge(std::nullopt, {softmaxResult({4096, 4096}, 2)});
  ojson both = merge(old.dump(), {bf16});
  CHECK(both["configs"].size() == 2);
  CHECK_FALSE(both["configs"][0].contains("dtypes"));
}

TEST_CASE("another kernel's results make a kernels file; both read back", "[tunedfile]") {
  ojson soft = merge(std::nullopt, {softmaxResult({4096, 4096}, 8)});
  ojson both = merge(soft.dump(), {matmulResult(4096, 3)}, "matmul");
  REQUIRE(both.contains("kernels"));
  CHECK(both["kernels"].size() == 2);
  CHECK(both["kernels"]["softmax"]["configs"][0]["config"]["num_warps"] == 8);
  CHECK_FALSE(both["kernels"]["softmax"]["configs"][0].contains("kernel"));
  CHECK(parse(both, softmaxSpec()).entries.size() == 1);
  config::ConfigFile m = parse(both, matmulSpec());
  REQUIRE(m.entries.size() == 1);
  CHECK(m.entries[0].config.numStages == 3);
  // And merging into the kernels form keeps it.
  ojson again = merge(both.dump(), {softmaxResult({2, 2}, 4)}, "softmax");
  CHECK(again["kernels"]["softmax"]["configs"].size() == 2);
  CHECK(again["kernels"]["matmul"]["configs"].size() == 1);
}

TEST_CASE("every input form is read", "[tunedfile]") {
  // A bare config without shapes: the untagged kernel's, kept as an unshaped entry.
  ojson bare = merge(R"({"num_warps": 2})", {softmaxResult({4096, 4096}, 8)});
  REQUIRE(bare["configs"].size() == 2);
  CHECK_FALSE(bare["configs"][0].contains("shapes"));
  config::ConfigFile f = parse(bare, softmaxSpec());
  CHECK(warpsFor(f, {4096, 4096}) == 8);
  CHECK(config::selectConfig(f, {}).config.numWarps == 2);

  // A configs list with kernel tags: the tags say whose.
  ojson tagged = merge(R"({"configs": [
      {"kernel": "matmul", "shapes": {"x": [64, 64], "y": [64, 64]}, "config": {"num_stages": 2}},
      {"shapes": {"x": [8, 8]}, "config": {"num_warps": 4}}]})",
                       {softmaxResult({8, 8}, 16)});
  CHECK(tagged["kernels"]["matmul"]["configs"].size() == 1);
  REQUIRE(tagged["kernels"]["softmax"]["configs"].size() == 1);
  CHECK(tagged["kernels"]["softmax"]["configs"][0]["config"]["num_warps"] == 16);

  // A kernels map whose values are a bare config and a list; an entry under softmax
  // tagged for another kernel is never read and is dropped.
  ojson named = merge(R"({"kernels": {
      "matmul": {"num_stages": 2},
      "softmax": {"configs": [{"kernel": "other", "config": {}}, {"config": {"num_warps": 1}}]}}})",
                      {softmaxResult({8, 8}, 16)});
  CHECK(named["kernels"]["matmul"]["configs"].size() == 1);
  CHECK(named["kernels"]["softmax"]["configs"].size() == 2);
  CHECK(parse(named, matmulSpec()).entries[0].config.numStages == 2);
  CHECK(warpsFor(parse(named, softmaxSpec()), {8, 8}) == 16);
}

TEST_CASE("a malformed file is an error naming the JSON path", "[tunedfile]") {
  auto errors = [](const std::string &text) {
    auto m = mergeTunedFile(ojson::parse(text), {softmaxResult({1, 1}, 1)}, "softmax", "best.json");
    CHECK_FALSE(m.ok());
    return m.errors;
  };
  CHECK(errors("[1]")[0] == "best.json: expected a config object, got [1]");
  CHECK(errors(R"({"configs": [{"shapes": {}}]})")[0] ==
        "best.json: configs[0]: missing key 'config' (or 'choose')");
  CHECK(errors(R"({"configs": []})")[0] ==
        "best.json: configs: expected a non-empty list of {\"shapes\", \"config\"} objects");
  CHECK(errors(R"({"configs": [{"config": {}, "ms": 1}]})")[0] ==
        "best.json: configs[0]: unknown key 'ms'");
  CHECK(
      errors(R"({"kernels": {"softmax": {"configs": [{"config": {}, "shapes": [1]}]}}})")[0] ==
      "best.json: kernels.softmax.configs[0].shapes: expected an object of tensor sizes, got [1]");
  CHECK(errors(R"({"kernels": 3})")[0] ==
        "best.json: kernels: expected an object of kernel names, got 3");
  CHECK(errors(R"({"kernels": {}, "configs": []})")[0] ==
        "best.json: expected only the key 'kernels' next to 'kernels'");
}

TEST_CASE("updateTunedFile merges on disk and leaves a bad file alone", "[tunedfile]") {
  fs::path dir = fs::temp_directory_path() / ("helionc-tuned-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::path p = dir / "best.json";
  CHECK(updateTunedFile(p, {softmaxResult({4096, 4096}, 8)}, "softmax").empty());
  CHECK(updateTunedFile(p, {matmulResult(512, 2)}, "matmul").empty());
  auto text = readFile(p);
  REQUIRE(text);
  ojson j = ojson::parse(*text);
  CHECK(j["kernels"].size() == 2);
  CHECK(parse(j, softmaxSpec()).entries.size() == 1);

  const std::string broken = "{\"configs\": [";
  REQUIRE_FALSE(writeFileAtomically(p, broken));
  auto errors = updateTunedFile(p, {softmaxResult({1, 1}, 1)}, "softmax");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("invalid JSON") != std::string::npos);
  CHECK(readFile(p) == broken);

  REQUIRE_FALSE(writeFileAtomically(p, R"({"num_warps": 1, "num_warps": 2})"));
  errors = updateTunedFile(p, {softmaxResult({1, 1}, 1)}, "softmax");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == p.string() + ": duplicate key 'num_warps'");
  fs::remove_all(dir);
}

TEST_CASE("a \"choose\" result is written as one entry and read back as its candidates",
          "[tunedfile][choose]") {
  config::ConfigSpec spec = matmulSpec();
  config::Config a = spec.defaultConfig(), b = spec.defaultConfig();
  a.numStages = 3;
  b.numStages = 4;
  TunedEntry choose{"matmul", nlohmann::json{{"x", {64, 64}}, {"y", {64, 64}}},
                    ojson::array({config::toJson(a, spec), config::toJson(b, spec)}), true};
  ojson file = merge(std::nullopt, {matmulResult(128, 2), choose}, "matmul");
  REQUIRE(file["configs"].size() == 2);
  CHECK(file["configs"][1].contains("choose"));
  CHECK_FALSE(file["configs"][1].contains("config"));
  config::ConfigFile parsed = parse(file, spec);
  REQUIRE(parsed.entries.size() == 3); // one config, then the two candidates
  CHECK(parsed.entries[0].choice == -1);
  CHECK(parsed.entries[1].choice == 0);
  CHECK(parsed.entries[2].choice == 1);
  CHECK(parsed.entries[1].config.numStages == 3);
  CHECK(parsed.entries[2].config.numStages == 4);
  CHECK(parsed.entries[2].shapes == parsed.entries[1].shapes);
  // Merging a plain result for the same shapes replaces the choice, and vice versa.
  ojson again = merge(file.dump(), {matmulResult(64, 2)}, "matmul");
  REQUIRE(again["configs"].size() == 2);
  CHECK(again["configs"][1].contains("config"));
  CHECK(parse(again, spec).entries.size() == 2);
}
