// The on-disk cubin cache: hits, misses, corruption, opting out.
#include "TestSupport.h"
#include "helion/runtime/Compile.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace helion::rt;
namespace fs = std::filesystem;

namespace {
const char *kKernel = R"(
#include "helion/device.cuh"
__global__ void twice_kernel(float* x) { x[threadIdx.x] = helion::dev::exp(x[threadIdx.x]); }
)";
CompileRequest request(std::vector<std::string> options = {}, std::string arch = "sm_90a") {
  return {kKernel, "twice.cu", {"twice_kernel"}, std::move(arch), std::move(options)};
}
} // namespace

TEST_CASE("the second compile is a cache hit with the same cubin", "[cache]") {
  test::ScopedCacheDir cache;
  CompiledProgram first = compile(request());
  CHECK_FALSE(first.cacheHit);
  REQUIRE(cache.entries().size() == 1);
  CompiledProgram second = compile(request());
  CHECK(second.cacheHit);
  CHECK(second.cubin == first.cubin);
  CHECK(second.loweredNames == first.loweredNames);
  std::printf("cache: miss %.1f ms, hit %.2f ms\n", first.seconds * 1e3, second.seconds * 1e3);
  CHECK(second.seconds < first.seconds);
}

TEST_CASE("changed options, arch, source or names miss the cache", "[cache]") {
  test::ScopedCacheDir cache;
  compile(request());
  CHECK_FALSE(compile(request({"--use_fast_math"})).cacheHit);
  CHECK_FALSE(compile(request({}, "sm_80")).cacheHit);
  CompileRequest other = request();
  other.source += "\n// a comment changes the key\n";
  CHECK_FALSE(compile(other).cacheHit);
  CompileRequest names = request();
  names.nameExpressions.push_back("twice_kernel"); // same kernel twice: a different request
  CHECK_FALSE(compile(names).cacheHit);
  CHECK(cache.entries().size() == 5);
  CHECK(compile(request({"--use_fast_math"})).cacheHit);
}

TEST_CASE("HELIONC_NVRTC_OPTIONS reaches NVRTC and the cache key", "[cache]") {
  test::ScopedCacheDir cache;
  setenv("HELIONC_NVRTC_OPTIONS", "  -DHELION_A=1 \t--use_fast_math ", 1);
  CHECK(environmentOptions() == std::vector<std::string>{"-DHELION_A=1", "--use_fast_math"});
  CHECK_FALSE(compile(request()).cacheHit);
  CHECK(compile(request()).cacheHit);
  unsetenv("HELIONC_NVRTC_OPTIONS");
  CHECK(environmentOptions().empty());
  CHECK_FALSE(compile(request()).cacheHit); // the same request without them is another entry
  CHECK(cache.entries().size() == 2);
  setenv("HELIONC_NVRTC_OPTIONS", "--no-such-option", 1);
  CHECK_THROWS_WITH(compile(request()), Catch::Contains("--no-such-option"));
  unsetenv("HELIONC_NVRTC_OPTIONS");
}

TEST_CASE("a corrupted or truncated entry is recompiled and rewritten", "[cache]") {
  test::ScopedCacheDir cache;
  CompiledProgram good = compile(request());
  REQUIRE(cache.entries().size() == 1);
  const fs::path entry = cache.entries().front();
  const auto size = fs::file_size(entry);

  SECTION("a flipped byte in the cubin") {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 100));
    char old = 0;
    f.seekg(static_cast<std::streamoff>(size - 100));
    f.get(old);
    f.seekp(static_cast<std::streamoff>(size - 100));
    f.put(static_cast<char>(old ^ 0x5a));
    f.close();
    CHECK(fs::file_size(entry) == size);
  }
  SECTION("truncated") {
    fs::resize_file(entry, size / 2);
    CHECK(fs::file_size(entry) == size / 2);
  }
  SECTION("empty") {
    fs::resize_file(entry, 0);
    CHECK(fs::file_size(entry) == 0);
  }
  SECTION("garbage") {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << "not a cache entry";
    CHECK(fs::file_size(entry) == 17);
  }

  CompiledProgram again = compile(request());
  CHECK_FALSE(again.cacheHit);
  CHECK(again.cubin == good.cubin);
  CHECK(fs::file_size(entry) == size); // rewritten whole
  CHECK(compile(request()).cacheHit);
}

TEST_CASE("another kernel's valid entry under this key's name is a miss", "[cache]") {
  test::ScopedCacheDir cache;
  CompileRequest other = request();
  other.source += "\n__global__ void other_kernel(float* x) { x[0] = 1.0f; }\n";
  other.nameExpressions = {"other_kernel"};
  CompiledProgram otherProgram = compile(other);
  CompiledProgram good = compile(request());
  REQUIRE(cache.entries().size() == 2);
  REQUIRE(otherProgram.cubin != good.cubin);
  fs::path mine, theirs;
  for (const fs::path &e : cache.entries()) {
    std::ifstream f(e, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    (bytes.find("other_kernel") != std::string::npos ? theirs : mine) = e;
  }
  REQUIRE(!mine.empty());
  REQUIRE(!theirs.empty());
  fs::copy_file(theirs, mine, fs::copy_options::overwrite_existing);

  CompiledProgram again = compile(request());
  CHECK_FALSE(again.cacheHit);
  CHECK(again.cubin == good.cubin);
  CHECK(again.loweredNames.count("twice_kernel") == 1);
  { // rewritten with its own entry
    std::ifstream f(mine, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(bytes.find("other_kernel") == std::string::npos);
  }
  CompiledProgram hit = compile(request());
  CHECK(hit.cacheHit);
  CHECK(hit.cubin == good.cubin);
  // No temporary file is left behind by the writes.
  for (const auto &e : fs::directory_iterator(cache.path()))
    CHECK(e.path().extension() == ".cubin");
}

TEST_CASE("HELIONC_NO_CACHE=1 disables the cache", "[cache]") {
  test::ScopedCacheDir cache;
  setenv("HELIONC_NO_CACHE", "1", 1);
  CHECK_FALSE(cacheEnabled());
  CHECK_FALSE(compile(request()).cacheHit);
  CHECK_FALSE(compile(request()).cacheHit);
  CHECK(cache.entries().empty());
  setenv("HELIONC_NO_CACHE", "0", 1);
  CHECK(cacheEnabled());
  unsetenv("HELIONC_NO_CACHE");
}

TEST_CASE("the cache directory follows the environment", "[cache]") {
  const char *saved = std::getenv("HOME");
  std::string home = saved ? saved : "";
  unsetenv("HELIONC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  CHECK(cacheDirectory() == fs::path("/tmp/xdg-test/helionc"));
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/tmp/home-test", 1);
  CHECK(cacheDirectory() == fs::path("/tmp/home-test/.cache/helionc"));
  setenv("HELIONC_CACHE_DIR", "/tmp/explicit", 1);
  CHECK(cacheDirectory() == fs::path("/tmp/explicit"));
  unsetenv("HELIONC_CACHE_DIR");
  if (saved)
    setenv("HOME", home.c_str(), 1);
}
