// KernelCache: the per-launcher table of loaded kernels that generated host code
// consults on every launch (no GPU: the kernels here are never launched).
#include "helion/runtime/Kernel.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

using namespace helion::rt;

namespace {
std::unique_ptr<Kernel> fakeKernel(const std::string &name) {
  return std::make_unique<Kernel>(name, name, nullptr, nullptr, 0);
}
} // namespace

TEST_CASE("a launcher's cache needs no guard and no destructor", "[kernel-cache]") {
  // A function-local `static KernelCache` is constant-initialized and never
  // destroyed, so launches during static destruction still find their kernels.
  STATIC_REQUIRE(std::is_trivially_destructible_v<KernelCache>);
  static constinit KernelCache cache;
  const std::int64_t key[] = {0, 1};
  CHECK(cache.find(key) == nullptr);
}

TEST_CASE("keys find what was inserted for them, and only that", "[kernel-cache]") {
  KernelCache cache;
  auto a = fakeKernel("a"), b = fakeKernel("b"), c = fakeKernel("c");
  const std::int64_t keyA[] = {0, 2, 4096, 8};
  const std::int64_t keyB[] = {0, 2, 4096, 4};
  const std::int64_t keyShort[] = {0, 2, 4096};
  CHECK(cache.find(keyA) == nullptr);
  CHECK(&cache.insert(keyA, *a) == a.get());
  CHECK(&cache.insert(keyB, *b) == b.get());
  CHECK(cache.find(keyA) == a.get());
  CHECK(cache.find(keyB) == b.get());
  CHECK(cache.find(keyShort) == nullptr); // a prefix is another key
  // A second insert of a key keeps the first kernel (a racing duplicate load).
  CHECK(&cache.insert(keyA, *c) == a.get());
  CHECK(cache.find(keyA) == a.get());
}

TEST_CASE("keys past the lock-free slots go to the overflow list", "[kernel-cache]") {
  KernelCache cache;
  std::vector<std::unique_ptr<Kernel>> kernels;
  const int n = static_cast<int>(KernelCache::kSlots) + 5;
  for (int i = 0; i < n; ++i) {
    kernels.push_back(fakeKernel("k" + std::to_string(i)));
    const std::int64_t key[] = {0, i};
    cache.insert(key, *kernels.back());
  }
  for (int i = 0; i < n; ++i) {
    const std::int64_t key[] = {0, i};
    CHECK(cache.find(key) == kernels[i].get());
  }
  const std::int64_t missing[] = {0, n};
  CHECK(cache.find(missing) == nullptr);
}

TEST_CASE("long keys (a kernel with many tensors) are found", "[kernel-cache]") {
  KernelCache cache;
  auto a = fakeKernel("a"), b = fakeKernel("b");
  std::int64_t key[40], other[40];
  for (int i = 0; i < 40; ++i)
    key[i] = other[i] = i;
  other[39] = -1;
  CHECK(cache.find(key) == nullptr);
  CHECK(&cache.insert(key, *a) == a.get());
  CHECK(&cache.insert(other, *b) == b.get());
  CHECK(cache.find(key) == a.get());
  CHECK(cache.find(other) == b.get());
}

TEST_CASE("concurrent finds and inserts agree on one kernel per key", "[kernel-cache]") {
  KernelCache cache;
  constexpr int kThreads = 8, kKeys = 24; // some keys land in the overflow list
  std::vector<std::unique_ptr<Kernel>> kernels;
  for (int t = 0; t < kThreads * kKeys; ++t)
    kernels.push_back(fakeKernel("k" + std::to_string(t)));
  std::vector<std::vector<const Kernel *>> seen(kThreads, std::vector<const Kernel *>(kKeys));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      while (!go.load())
        std::this_thread::yield();
      for (int round = 0; round < 50; ++round)
        for (int i = 0; i < kKeys; ++i) {
          const std::int64_t key[] = {0, i, 42};
          const Kernel *k = cache.find(key);
          if (!k)
            k = &cache.insert(key, *kernels[t * kKeys + i]);
          if (round == 0)
            seen[t][i] = k;
          else if (seen[t][i] != k)
            seen[t][i] = nullptr; // the answer changed: reported below
        }
    });
  go = true;
  for (std::thread &th : threads)
    th.join();
  for (int i = 0; i < kKeys; ++i) {
    const std::int64_t key[] = {0, i, 42};
    const Kernel *winner = cache.find(key);
    REQUIRE(winner != nullptr);
    for (int t = 0; t < kThreads; ++t)
      CHECK(seen[t][i] == winner);
  }
}
