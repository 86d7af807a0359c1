//===- helion/runtime/Timing.h - timing device work with events -*- C++ -*-===//
//
// What benchmarks and the tuner time with: CUDA events recorded on the legacy
// default stream around each run, so the figure is device time, not host time
// (a host clock around asynchronous launches measures the launch path too).
//
//   auto t = helion::rt::benchmark([&] { softmax(x); });
//   std::printf("%.1f us\n", t.medianMs * 1e3);
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>

namespace helion::rt {

struct BenchmarkResult {
  double medianMs = 0; ///< median over the timed runs
  double minMs = 0;
  int runs = 0;
};

struct BenchmarkOptions {
  int warmupRuns = 3;     ///< untimed runs first (module load, compilation, caches)
  int minRuns = 10;       ///< at least this many timed runs
  double targetMs = 100;  ///< ... and keep timing until this much device time
  int maxRuns = 1000;
  /// Bytes to overwrite between runs so each starts with a cold L2 (0: warm L2).
  long long flushBytes = 0;
};

/// Times `fn` (which enqueues device work on the legacy default stream) with
/// an event pair around each run. Throws helion::rt::CudaError on a CUDA error.
BenchmarkResult benchmark(const std::function<void()> &fn, const BenchmarkOptions &options = {});

/// Host seconds per call of `fn` when the device is not the bottleneck:
/// `calls` back-to-back calls timed with a host clock, then one synchronize.
/// Measures the launch path (argument packing, kernel lookup, cuLaunchKernel).
double hostSecondsPerCall(const std::function<void()> &fn, int calls = 1000);

} // namespace helion::rt
