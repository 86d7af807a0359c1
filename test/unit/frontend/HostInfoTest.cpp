// HostInfo: the byte ranges and captures that the host rewriter relies on.
#include "helion/Frontend/Frontend.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace helion;

namespace {
frontend::ParseResult parseExample(const std::string& name) {
  std::ostringstream err;
  DiagnosticEngine diags(err);
  frontend::ParseOptions options;
  options.includeDir = HELIONC_SOURCE_INCLUDE_DIR;
  auto result = frontend::parseKernels(HELIONC_EXAMPLES_DIR "/" + name, options, diags);
  INFO(err.str());
  REQUIRE(result);
  return *result;
}

std::string text(const frontend::ParseResult& r, frontend::HostRegion region) {
  REQUIRE(region.begin <= region.end);
  REQUIRE(region.end <= r.text.size());
  return r.text.substr(region.begin, region.end - region.begin);
}
} // namespace

TEST_CASE("host regions cover the kernel, its body and its device loops") {
  auto r = parseExample("softmax.cpp");
  REQUIRE(r.kernels.size() == 2);
  const auto& two = r.kernels[1];
  CHECK(two.kernel.name == "softmax_two_pass");
  std::string fn = text(r, two.host.function);
  CHECK(fn.rfind("HELION_KERNEL Tensor softmax_two_pass(", 0) == 0);
  CHECK(fn.back() == '}');
  std::string body = text(r, two.host.body);
  CHECK(body.front() == '{');
  CHECK(body.back() == '}');
  REQUIRE(two.host.deviceLoops.size() == 1);
  std::string loop = text(r, two.host.deviceLoops[0]);
  CHECK(loop.rfind("for (auto tm : hl::tile(m, hl::block_size(block_m)))", 0) == 0);
  CHECK(loop.back() == '}');
}

TEST_CASE("register_block_size calls and captures are recorded") {
  auto r = parseExample("softmax.cpp");
  const auto& two = r.kernels[1];
  REQUIRE(two.host.registerBlockSizeCalls.size() == 2);
  CHECK(text(r, two.host.registerBlockSizeCalls[0].call) == "hl::register_block_size(m)");
  CHECK(two.host.registerBlockSizeCalls[1].blockSize == 1);
  // Where each variable's declaration begins: `int64_t block_n = ...`.
  const unsigned decl = two.host.registerBlockSizeCalls[1].declBegin;
  CHECK(text(r, {decl, decl + 17}) == "int64_t block_n =");
  REQUIRE(two.host.captures.size() == two.kernel.params.size());
  for (const auto& c : two.host.captures)
    CHECK(c.expr == two.kernel.params[c.param].name);
  CHECK(two.kernel.params[0].name == "x");
  CHECK_FALSE(two.kernel.params[0].captured);
  CHECK(two.kernel.params.back().captured);
}

TEST_CASE("a kernel with errors yields no result and reports them") {
  std::ostringstream err;
  DiagnosticEngine diags(err);
  frontend::ParseOptions options;
  options.includeDir = HELIONC_SOURCE_INCLUDE_DIR;
  auto result = frontend::parseKernels("/nonexistent/kernel.cpp", options, diags);
  CHECK_FALSE(result);
  CHECK(diags.errorCount() == 1);
  CHECK(err.str().find("cannot read '/nonexistent/kernel.cpp'") != std::string::npos);
}
