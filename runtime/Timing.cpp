//===- Timing.cpp - timing device work with events ------------------------===//

#include "helion/runtime/Timing.h"

#include "DriverApi.h"
#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/Kernel.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace helion::rt {

using detail::driverApi;

namespace {

/// An event pair, destroyed on scope exit.
struct EventPair {
  CUevent start = nullptr, stop = nullptr;
  EventPair() {
    checkCuda(driverApi().cuEventCreate(&start, CU_EVENT_DEFAULT), "creating a CUDA event");
    checkCuda(driverApi().cuEventCreate(&stop, CU_EVENT_DEFAULT), "creating a CUDA event");
  }
  ~EventPair() {
    driverApi().cuEventDestroy(start);
    driverApi().cuEventDestroy(stop);
  }
  EventPair(const EventPair &) = delete;
  EventPair &operator=(const EventPair &) = delete;
};

} // namespace

BenchmarkResult benchmark(const std::function<void()> &fn, const BenchmarkOptions &options) {
  const int device = currentDevice();
  useDevice(device);
  void *flush = nullptr;
  if (options.flushBytes > 0)
    flush = cudaAllocate(static_cast<std::size_t>(options.flushBytes), device);
  auto flushL2 = [&] {
    if (flush)
      cudaMemset(flush, device, 0, static_cast<std::size_t>(options.flushBytes));
  };
  for (int i = 0; i < options.warmupRuns; ++i) {
    flushL2();
    fn();
  }
  synchronize();

  std::vector<double> ms;
  double total = 0;
  EventPair pair;
  while (static_cast<int>(ms.size()) < options.maxRuns &&
         (static_cast<int>(ms.size()) < options.minRuns || total < options.targetMs)) {
    flushL2();
    checkCuda(driverApi().cuEventRecord(pair.start, nullptr), "recording a CUDA event");
    fn();
    checkCuda(driverApi().cuEventRecord(pair.stop, nullptr), "recording a CUDA event");
    checkCuda(driverApi().cuEventSynchronize(pair.stop), "waiting for a CUDA event");
    float elapsed = 0;
    checkCuda(driverApi().cuEventElapsedTime(&elapsed, pair.start, pair.stop),
              "reading a CUDA event pair");
    ms.push_back(elapsed);
    total += elapsed;
  }
  if (flush)
    cudaFree(flush, device);
  BenchmarkResult result;
  result.runs = static_cast<int>(ms.size());
  std::sort(ms.begin(), ms.end());
  result.minMs = ms.front();
  result.medianMs = ms.size() % 2 ? ms[ms.size() / 2]
                                  : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  return result;
}

double hostSecondsPerCall(const std::function<void()> &fn, int calls) {
  fn();
  synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    fn();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  synchronize();
  return s / calls;
}

} // namespace helion::rt
