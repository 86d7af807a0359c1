// NVRTC compilation: options, errors and name expressions.
#include "helion/runtime/Compile.h"
#include "TestSupport.h"

#include <catch2/catch.hpp>

using namespace helion::rt;

namespace {
const char *kAdd = R"(
extern "C" __global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
template <int N> __global__ void scale_kernel(float* x) { x[threadIdx.x] *= N; }
)";
}

TEST_CASE("compile errors carry the program name and the NVRTC log", "[compile]") {
  test::ScopedCacheDir cache;
  const char *broken = R"(
__global__ void broken_kernel(float* x) {
  x[0] = undeclared_name;
}
)";
  try {
    compile({broken, "broken.cu", {"broken_kernel"}, "sm_90a", {}});
    FAIL("expected a CompileError");
  } catch (const CompileError &e) {
    CHECK(e.programName() == "broken.cu");
    CHECK_THAT(e.log(), Catch::Contains("undeclared_name"));
    CHECK_THAT(e.log(), Catch::Contains("broken.cu(3)"));
    CHECK_THAT(e.what(), Catch::Contains("compiling 'broken.cu' for sm_90a"));
    CHECK_THAT(e.what(), Catch::Contains("undeclared_name"));
  }
  CHECK(cache.entries().empty()); // failures are not cached
}

TEST_CASE("bad options are a CompileError naming the option", "[compile]") {
  test::ScopedCacheDir cache;
  try {
    compile({kAdd, "add.cu", {"add_kernel"}, "sm_90a", {"--no-such-option"}});
    FAIL("expected a CompileError");
  } catch (const CompileError &e) {
    CHECK_THAT(e.what(), Catch::Contains("add.cu"));
  }
}

TEST_CASE("name expressions resolve to lowered names", "[compile]") {
  test::ScopedCacheDir cache;
  CompiledProgram p =
      compile({kAdd, "add.cu", {"add_kernel", "scale_kernel<4>"}, "sm_80", {"--use_fast_math"}});
  CHECK(p.loweredNames.at("add_kernel") == "add_kernel"); // extern "C": unmangled
  CHECK(p.loweredNames.at("scale_kernel<4>") == "_Z12scale_kernelILi4EEvPf");
}

TEST_CASE("an unknown name expression is an error", "[compile]") {
  test::ScopedCacheDir cache;
  CHECK_THROWS_WITH(compile({kAdd, "add.cu", {"missing_kernel"}, "sm_80", {}}),
                    Catch::Contains("missing_kernel") && Catch::Contains("add.cu"));
}

TEST_CASE("compile needs an architecture", "[compile]") {
  CHECK_THROWS_WITH(compile({kAdd, "add.cu", {"add_kernel"}, "", {}}),
                    Catch::Contains("no target architecture"));
}

TEST_CASE("base options", "[compile]") {
  std::vector<std::string> options = baseOptions("sm_90a");
  CHECK(options == std::vector<std::string>{"--gpu-architecture=sm_90a", "-std=c++17",
                                            "-default-device", "-lineinfo", "-minimal",
                                            "--diag-suppress=177"});
  CHECK(nvrtcVersion().rfind("13.", 0) == 0);
}

TEST_CASE("the device library is embedded with NVRTC include names", "[compile]") {
  std::vector<std::string> names;
  for (const EmbeddedHeader &h : deviceLibrary()) {
    names.push_back(h.name);
    CHECK(std::string(h.text).size() > 100);
    // No host or toolkit header may sneak in: NVRTC time is header parsing.
    std::string text = h.text;
    for (std::size_t at = text.find("#include"); at != std::string::npos;
         at = text.find("#include", at + 1)) {
      INFO(h.name << ": " << text.substr(at, text.find('\n', at) - at));
      CHECK(text.compare(at, 17, "#include \"helion/") == 0);
    }
  }
  CHECK(std::find(names.begin(), names.end(), "helion/device.cuh") != names.end());
  CHECK(std::find(names.begin(), names.end(), "helion/async.cuh") != names.end());
}
