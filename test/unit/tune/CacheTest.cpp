// The tuning result cache: round trip, stale and damaged entries are misses, atomic
// writes from concurrent writers.
#include "helion/Tune/AtomicFile.h"
#include "helion/Tune/TuneCache.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <thread>

using namespace helion::tune;
namespace fs = std::filesystem;

namespace {

/// A fresh directory under the system's temporary directory, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("helionc-tune-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int &counter() {
    static int n = 0;
    return n;
  }
};

TuneKey key() {
  TuneKey k;
  k.sourceHash = sourceHash("HELION_KERNEL void softmax(...) {}");
  k.kernel = "softmax";
  k.args = "x=bf16[4096,4096]";
  k.gpu = "NVIDIA H100 80GB HBM3";
  k.computeCapability = "9.0";
  k.driver = "13000";
  k.nvrtc = "13.0";
  k.helionc = helioncVersion();
  return k;
}

nlohmann::json result() {
  return nlohmann::json::parse(R"({"config": {"block_sizes": [1], "num_warps": 8}, "ms": 0.125})");
}

void writeText(const fs::path &p, const std::string &text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

} // namespace

TEST_CASE("a stored result is found under its key", "[cache]") {
  TempDir dir;
  TuneCache cache(dir.path / "tune"); // created on the first store
  CHECK_FALSE(cache.lookup(key()));
  REQUIRE_FALSE(cache.store(key(), result()));
  auto hit = cache.lookup(key());
  REQUIRE(hit);
  CHECK(*hit == result());
  CHECK(cache.entryPath(key()) == dir.path / "tune" / (key().digest() + ".json"));
  // The entry holds the readable key.
  auto entry = nlohmann::json::parse(*readFile(cache.entryPath(key())));
  CHECK(entry["key_text"] == key().text());
  CHECK(entry["key"]["gpu"] == "NVIDIA H100 80GB HBM3");
  // Storing again replaces.
  nlohmann::json other = result();
  other["ms"] = 0.1;
  REQUIRE_FALSE(cache.store(key(), other));
  CHECK(cache.lookup(key())->at("ms") == 0.1);
}

TEST_CASE("every key field changes the digest", "[cache]") {
  const std::string base = key().digest();
  CHECK(base.size() == 32);
  CHECK(key().digest() == base); // stable
  std::string TuneKey::*fields[] = {
      &TuneKey::sourceHash,        &TuneKey::kernel, &TuneKey::args,  &TuneKey::gpu,
      &TuneKey::computeCapability, &TuneKey::driver, &TuneKey::nvrtc, &TuneKey::helionc};
  for (auto field : fields) {
    TuneKey k = key();
    k.*field += "'";
    CHECK(k.digest() != base);
  }
  CHECK(key().text() == "source=" + key().sourceHash +
                            " kernel=softmax args=x=bf16[4096,4096] gpu='NVIDIA H100 80GB "
                            "HBM3' sm=9.0 driver=13000 nvrtc=13.0 helionc=" +
                            helioncVersion());
}

TEST_CASE("an entry whose key differs is a miss", "[cache]") {
  TempDir dir;
  TuneCache cache(dir.path);
  REQUIRE_FALSE(cache.store(key(), result()));
  // Another driver: another file, so a miss.
  TuneKey newer = key();
  newer.driver = "13010";
  CHECK_FALSE(cache.lookup(newer));
  // The same file name but a stale key inside (a collision, or a hand-copied file).
  fs::copy_file(cache.entryPath(key()), cache.entryPath(newer));
  CHECK_FALSE(cache.lookup(newer));
  CHECK(cache.lookup(key()));
}

TEST_CASE("a corrupt or truncated entry is a miss", "[cache]") {
  TempDir dir;
  TuneCache cache(dir.path);
  REQUIRE_FALSE(cache.store(key(), result()));
  std::string good = *readFile(cache.entryPath(key()));
  const std::string bad[] = {
      good.substr(0, good.size() / 2), // truncated
      "",                              // empty
      "not json",                      // garbage
      "[1, 2]",                        // not an object
      R"({"format": 2, "key": {}, "result": {}})",
      R"({"format": "1"})",
  };
  for (const std::string &text : bad) {
    INFO(text);
    writeText(cache.entryPath(key()), text);
    CHECK_FALSE(cache.lookup(key()));
  }
  auto entry = nlohmann::json::parse(good);
  entry["result"] = 3; // not an object
  writeText(cache.entryPath(key()), entry.dump());
  CHECK_FALSE(cache.lookup(key()));
  entry = nlohmann::json::parse(good);
  entry["key"]["extra"] = "field";
  writeText(cache.entryPath(key()), entry.dump());
  CHECK_FALSE(cache.lookup(key()));
  writeText(cache.entryPath(key()), good);
  CHECK(cache.lookup(key()));
}

TEST_CASE("concurrent writers never leave a torn entry", "[cache]") {
  TempDir dir;
  TuneCache cache(dir.path);
  // Two large, different results written over each other many times while a third
  // thread reads: every read is a miss-free whole entry of one of them.
  nlohmann::json a = result(), b = result();
  a["padding"] = std::string(200000, 'a');
  b["padding"] = std::string(300000, 'b');
  REQUIRE_FALSE(cache.store(key(), a));
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  auto writer = [&](const nlohmann::json &r) {
    for (int i = 0; i < 40; ++i)
      if (cache.store(key(), r))
        ++failures;
  };
  int reads = 0, torn = 0;
  std::thread reader([&] {
    while (!stop) {
      auto hit = cache.lookup(key());
      ++reads;
      if (!hit || !(*hit == a || *hit == b))
        ++torn;
    }
  });
  std::thread w1(writer, std::cref(a)), w2(writer, std::cref(b));
  w1.join();
  w2.join();
  stop = true;
  reader.join();
  CHECK(failures == 0);
  CHECK(reads > 0);
  CHECK(torn == 0);
  // No temporary files left behind.
  size_t files = 0;
  for (const auto &e : fs::directory_iterator(dir.path))
    files += e.is_regular_file();
  CHECK(files == 1);
}

TEST_CASE("atomic writes replace whole files and report failures", "[cache]") {
  TempDir dir;
  fs::path p = dir.path / "sub" / "best.json";
  REQUIRE_FALSE(writeFileAtomically(p, "one"));
  CHECK(readFile(p) == "one");
  REQUIRE_FALSE(writeFileAtomically(p, "two"));
  CHECK(readFile(p) == "two");
  // A directory in the way: an error naming the file, and the old contents stay.
  fs::create_directories(dir.path / "taken");
  auto failure = writeFileAtomically(dir.path / "taken", "x");
  REQUIRE(failure);
  CHECK(failure->find("cannot write '" + (dir.path / "taken").string() + "'") == 0);
  CHECK_FALSE(readFile(dir.path / "missing"));
}

TEST_CASE("the default directory follows the NVRTC cache's", "[cache]") {
  const char *saved = std::getenv("HELIONC_CACHE_DIR");
  std::string keep = saved ? saved : "";
  ::setenv("HELIONC_CACHE_DIR", "/tmp/hc", 1);
  CHECK(TuneCache::defaultDirectory() == fs::path("/tmp/hc/tune"));
  ::unsetenv("HELIONC_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(TuneCache::defaultDirectory() == fs::path("/tmp/xdg/helionc/tune"));
  ::unsetenv("XDG_CACHE_HOME");
  if (const char *home = std::getenv("HOME"); home && *home)
    CHECK(TuneCache::defaultDirectory() == fs::path(home) / ".cache/helionc/tune");
  if (saved)
    ::setenv("HELIONC_CACHE_DIR", keep.c_str(), 1);
  ::setenv("HELIONC_NO_CACHE", "1", 1);
  CHECK_FALSE(TuneCache::enabled());
  ::setenv("HELIONC_NO_CACHE", "0", 1);
  CHECK(TuneCache::enabled());
  ::unsetenv("HELIONC_NO_CACHE");
}
