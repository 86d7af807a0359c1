//===- launch_floor.cpp - Host time of a launch, layer by layer (GPU) -------===//
//
// The driver's cuLaunchKernel alone, the runtime's launch(), and launch() after
// a KernelCache lookup with a generated-style key, each as the best of 7 rounds
// of 1000 back-to-back launches of a trivial kernel. On the GPU machine, one
// command (the embedded device library comes from a build made here):
//   g++ -std=c++20 -O2 -Iinclude -Iruntime -I/usr/local/cuda/include
//     benchmarks/launch_floor.cpp runtime/*.cpp BUILD/runtime/DeviceLibrary.cpp
//     -ldl -Wl,--undefined=helion_rt_install_cuda_backend
//===----------------------------------------------------------------------===//
#include "DriverApi.h"
#include "helion/runtime/Generated.h"
#include "helion/runtime/Kernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace helion::rt;

template <class F> double usPerCall(F &&f) {
  double best = 1e9;
  for (int round = 0; round < 7; ++round) {
    synchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; ++i)
      f();
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        1000;
    best = std::min(best, us);
  }
  synchronize();
  return best;
}

int main() {
  const char *src =
      "extern \"C\" __global__ void k(float* p, long long n) { if (n < 0) p[0] = 1.f; }";
  const Kernel &k = loadKernel({"floor.cu", src, "k", {}});
  float *p = nullptr;
  long long n = 1;
  void *args[] = {&p, &n};
  const detail::DriverApi &api = detail::driverApi();
  double raw = usPerCall(
      [&] { api.cuLaunchKernel(k.function(), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr); });
  double rt = usPerCall([&] { launch(k, {1}, {32}, 0, args); });
  static KernelCache cache;
  {
    const std::int64_t key[] = {0, 1, 1, 1, 8, 3};
    cache.insert(key, k);
  }
  double lookup = usPerCall([&] {
    const std::int64_t key[] = {currentDevice(), 1, 1, 1, 8, 3};
    launch(*cache.find(key), {1}, {32}, 0, args);
  });
  std::printf(
      "cuLaunchKernel alone %.2f us, launch() %.2f us, KernelCache + launch() %.2f us per call\n",
      raw, rt, lookup);
}
