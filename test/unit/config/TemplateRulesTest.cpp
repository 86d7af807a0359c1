// The matmul family's rules (TemplateRules.h): what the spec, the default config, the
// validator and the template-plan pass read. The attention family is checked on typed
// kernels in lit (Passes/template-plan.cpp, CodeGen/attention-diagnostics.cpp).
#include "TestKernels.h"
#include "helion/Config/Candidates.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Config/TemplateRules.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace helion;
using namespace helion::config;

namespace {

std::vector<std::string> paths(const std::vector<ConfigError>& errs) {
  std::vector<std::string> out;
  for (const ConfigError& e : errs)
    out.push_back(e.path());
  return out;
}

} // namespace

TEST_CASE("matmul rules: the tiles and the default config's parameters", "[rules]") {
  ir::Kernel k = test::matmulKernel();
  std::optional<MatmulRules> rules = MatmulRules::of(k);
  REQUIRE(rules);
  CHECK(rules->tiles().m == 0);
  CHECK(rules->tiles().n == 1);
  CHECK(rules->tiles().k == 2);
  CHECK(rules->tiles().b == -1);
  CHECK(!rules->tiles().bTransposed);

  ConfigSpec spec = ConfigSpec::fromKernel(k);
  Config c = spec.defaultConfig();
  ir::GemmParams p;
  p.bm = -1;
  CHECK(rules->check(c, &p).empty());
  CHECK(p.sm90);
  CHECK(p.bm == 128);
  CHECK(p.bn == 256);
  CHECK(p.stages == 4);
  CHECK(p.consumers == 2);
  CHECK(p.persistent);
  CHECK(p.groupM == 8);
  CHECK(p.sm80Bm == 128);
  CHECK(p.sm80Stages == 4);
}

TEST_CASE("matmul rules: each broken rule is an error at its path", "[rules]") {
  ir::Kernel k = test::matmulKernel();
  MatmulRules rules = *MatmulRules::of(k);
  Config c = ConfigSpec::fromKernel(k).defaultConfig();
  ir::GemmParams p;
  p.bm = -1;

  Config warps = c;
  warps.numWarps = 4;
  CHECK(paths(rules.check(warps, &p)) == std::vector<std::string>{"num_warps"});
  CHECK(p.bm == -1); // no parameters from a broken config

  Config big = c; // 256 x 256 with 2 consumers: 256 accumulators per thread
  big.blockSizes = {256, 256, 64};
  CHECK(paths(rules.check(big, nullptr)) ==
        std::vector<std::string>{"block_sizes[1]", "num_stages"});

  Config sm80 = c; // the sm80 kernel: columns in 64s
  sm80.indexing.assign(sm80.indexing.size(), Indexing::Pointer);
  sm80.blockSizes = {128, 96, 64};
  CHECK(paths(rules.check(sm80, nullptr, /*withRanges=*/false)) ==
        std::vector<std::string>{"block_sizes[1]"});

  // The ranges the spec narrows to, for configs that did not come through validate().
  Config tk = c;
  tk.blockSizes = {128, 256, 32};
  tk.numStages = 1;
  CHECK(paths(rules.check(tk, nullptr)) ==
        std::vector<std::string>{"block_sizes[2]", "num_stages"});
  CHECK(rules.check(tk, nullptr, /*withRanges=*/false).empty());
  std::vector<ConfigError> once = validate(tk, ConfigSpec::fromKernel(k));
  CHECK(paths(once) == std::vector<std::string>{"block_sizes[2]", "num_stages"});
}

TEST_CASE("matmul rules: validate() and the pass's check agree on random configs",
          "[rules]") {
  // The spec, the validator and the template-plan pass must never disagree: a config
  // validate() accepts maps to parameters, and one it rejects breaks a rule there too
  // (the spec's ranges included).
  ir::Kernel k = test::matmulKernel();
  MatmulRules rules = *MatmulRules::of(k);
  ConfigSpec spec = ConfigSpec::fromKernel(k);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pow2(3, 9), warps(0, 3), stages(1, 8), ix(0, 1);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 2000; ++i) {
    Config c = spec.defaultConfig();
    for (int64_t& b : c.blockSizes)
      b = int64_t{1} << pow2(rng);
    c.numWarps = std::vector<int>{4, 8, 12, 16}[warps(rng)];
    c.numStages = stages(rng);
    c.indexing.assign(c.indexing.size(), ix(rng) ? Indexing::TensorDescriptor : Indexing::Pointer);
    const bool valid = validate(c, spec).empty();
    ir::GemmParams p;
    const bool mapped = rules.check(c, &p).empty();
    INFO(formatConfig(c, spec));
    CHECK(valid == mapped);
    (valid ? accepted : rejected)++;
  }
  CHECK(accepted > 20);
  CHECK(rejected > 20);
}

TEST_CASE("matmul rules: the spec's ranges", "[rules]") {
  ConfigSpec spec = ConfigSpec::fromKernel(test::matmulKernel());
  REQUIRE(spec.blockSizes.size() == 3);
  CHECK(spec.blockSizes[0].min == 64);
  CHECK(spec.blockSizes[0].max == 256);
  CHECK(spec.blockSizes[1].min == 64);
  CHECK(spec.blockSizes[2].min == 64);
  CHECK(spec.blockSizes[2].max == 64);
  CHECK(spec.numWarpsChoices() == std::vector<int>{8, 12});
}

TEST_CASE("matmul rules: a product scaled per K block takes 3 consumers of 192 rows",
          "[rules]") {
  ir::Kernel k = test::scaledMatmulKernel();
  std::optional<MatmulRules> rules = MatmulRules::of(k);
  REQUIRE(rules);
  REQUIRE(rules->tiles().kScaled);
  ConfigSpec spec = ConfigSpec::fromKernel(k);
  CHECK(spec.numWarpsChoices() == std::vector<int>{8, 12, 16});
  const std::vector<int64_t> rows = spec.blockSizeChoices(0);
  CHECK(std::find(rows.begin(), rows.end(), 192) != rows.end());

  // The default: 2 consumers of 128 rows.
  Config c = spec.defaultConfig();
  CHECK(c.numWarps == 12);
  CHECK(c.blockSizes[0] == 128);
  CHECK(validate(c, spec).empty());

  // 16 warps move tm to 192: 3 consumers, valid; back to 12 warps, tm 128.
  Config three = c;
  rules->setConsumers(three, 16);
  CHECK(three.blockSizes[0] == 192);
  INFO(formatConfig(three, spec));
  CHECK(validate(three, spec).empty());
  ir::GemmParams p;
  CHECK(rules->check(three, &p).empty());
  CHECK(p.consumers == 3);
  CHECK(p.bm == 192);
  Config two = three;
  rules->setConsumers(two, 12);
  CHECK(two.blockSizes[0] == 128);
  CHECK(two.numWarps == 12);

  // The tuner's first candidates include it.
  bool found = false;
  for (const Config& n : neighbors(c, spec))
    found = found || (n.numWarps == 16 && n.blockSizes[0] == 192);
  CHECK(found);

  // 16 warps want 192 rows, 192 rows want 16 warps.
  Config wrongRows = c;
  wrongRows.numWarps = 16;
  CHECK(paths(rules->check(wrongRows, nullptr)) == std::vector<std::string>{"block_sizes[0]"});
  Config wrongWarps = three;
  wrongWarps.numWarps = 12;
  CHECK(paths(rules->check(wrongWarps, nullptr)) == std::vector<std::string>{"block_sizes[0]"});
}

TEST_CASE("matmul rules: a plain matmul takes no 16 warps", "[rules]") {
  ir::Kernel k = test::matmulKernel();
  MatmulRules rules = *MatmulRules::of(k);
  Config c = ConfigSpec::fromKernel(k).defaultConfig();
  c.numWarps = 16;
  CHECK(paths(rules.check(c, nullptr)) == std::vector<std::string>{"num_warps"});
  Config rows = ConfigSpec::fromKernel(k).defaultConfig();
  rules.setConsumers(rows, 16); // no rows moved: tm stays, the warps are wrong
  CHECK(rows.blockSizes[0] == 128);
}
