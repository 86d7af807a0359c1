// The pass pipeline runner: printing, stopping, and the verifier after each pass
// (always after analysis passes, after config passes with verifyEach).
#include "../config/TestKernels.h"
#include "helion/Transforms/Passes.h"

#include <catch2/catch.hpp>
#include <set>
#include <sstream>

using namespace helion;
using namespace helion::ir;

namespace {

/// A pass that breaks the IR: the grid loop loses its tiles.
Kernel breakLoops(const Kernel& k, PassContext&) {
  Kernel out = k;
  auto loop = std::make_shared<Stmt>(*out.body.at(0));
  loop->tiles.clear();
  out.body[0] = loop;
  return out;
}

Kernel identity(const Kernel& k, PassContext&) { return k; }

struct Run {
  bool ok;
  bool stopped;
  std::string printed, diags;
};

Run run(const std::vector<Pass>& passes, PipelineOptions o) {
  std::ostringstream printed, diags;
  DiagnosticEngine engine(diags);
  PassContext ctx{engine, nullptr};
  o.out = &printed;
  bool stopped = false;
  auto k = runPasses(config::test::softmaxKernel(), passes, ctx, o, &stopped);
  return {k.has_value(), stopped, printed.str(), diags.str()};
}

} // namespace

TEST_CASE("the pipeline table names every pass once, analysis passes first", "[pipeline]") {
  bool seenConfig = false;
  std::set<std::string> names;
  for (const Pass& p : pipeline()) {
    CHECK(names.insert(p.name).second);
    CHECK_FALSE((seenConfig && !p.needsConfig)); // no analysis pass after a config pass
    seenConfig |= p.needsConfig;
    CHECK(isStageName(p.name));
  }
  CHECK(isStageName("frontend"));
  CHECK_FALSE(isStageName("all"));
  CHECK(stageNames().rfind("frontend, infer-types, flatten-grid, hoist-blocks", 0) == 0);
}

TEST_CASE("a broken analysis pass is always caught by the verifier", "[pipeline]") {
  PipelineOptions o;
  o.verifyEach = false;
  Run r = run({{"break-loops", "", breakLoops, false}}, o);
  CHECK_FALSE(r.ok);
  CHECK(r.diags.find("internal compiler error: invalid IR after break-loops: a tile loop without "
                     "tiles") != std::string::npos);
}

TEST_CASE("a broken config pass is caught with verifyEach only", "[pipeline]") {
  PipelineOptions o;
  o.verifyEach = true;
  Run checked = run({{"break-loops", "", breakLoops, true}}, o);
  CHECK_FALSE(checked.ok);
  CHECK(checked.diags.find("invalid IR after break-loops") != std::string::npos);
  o.verifyEach = false;
  Run unchecked = run({{"break-loops", "", breakLoops, true}}, o);
  CHECK(unchecked.ok);
  CHECK(unchecked.diags.empty());
}

TEST_CASE("print-after and stop-after follow the table", "[pipeline]") {
  // Config passes, unverified: the hand-built kernel is untyped.
  std::vector<Pass> passes = {{"first", "", identity, true}, {"second", "", identity, true}};
  PipelineOptions o;
  o.verifyEach = false;
  o.printAfter = {"second"};
  Run r = run(passes, o);
  CHECK(r.ok);
  CHECK_FALSE(r.stopped);
  CHECK(r.printed.rfind("// -----// IR after second //----- //\nkernel softmax(", 0) == 0);
  CHECK(r.printed.find("IR after first") == std::string::npos);
  o.printAfter = {"all"};
  o.stopAfter = "first";
  Run stopped = run(passes, o);
  CHECK(stopped.ok);
  CHECK(stopped.stopped);
  CHECK(stopped.printed.find("IR after first") != std::string::npos);
  CHECK(stopped.printed.find("IR after second") == std::string::npos);
}
