//===- choice_check.cpp - Run-time choice among candidates on the GPU -------===//
//
// Built by scripts/choice_gpu_check.sh over the host files `helionc compile` wrote for
// test/gpu/kernels/accumulate.cpp (acc += x, in place) and examples/matmul.cpp, each
// with a "choose" entry of a slow and a fast candidate, the slow one first
// (test/gpu/choice/*.json). For each kernel it
//   1. times every candidate alone (forcedShapeEntry, helion::rt::benchmark);
//   2. calls the kernel with no entry forced: the launcher times the candidates and
//      runs the winner, seen through the threads per block of the last launch;
//   3. checks the winner is the candidate that step 1 found fastest, and that the
//      results are right: acc0 + x after one call and acc0 + 2x after two (timing ran
//      on scratch copies, never on `acc`); the matmul against a float64 dot at 4096
//      random elements.
// One line per check; exit 1 on any failure.
//===----------------------------------------------------------------------===//
#include <helion/hl.h>
#include <helion/runtime/CudaBackend.h>
#include <helion/runtime/Generated.h>
#include <helion/runtime/Timing.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace acc_gen {
#include "accumulate.helion.cpp"
}
namespace mm_gen {
#include "matmul.helion.cpp"
}

using helion::DType;
using helion::Tensor;

namespace {

int failures = 0;

void report(bool ok, const std::string& what) {
  failures += !ok;
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
}

Tensor randomTensor(std::vector<int64_t> sizes, DType dt, uint64_t seed) {
  Tensor t = helion::empty(sizes, DType::f32);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data_ptr<float>()[i] = u(rng);
  if (dt == DType::bf16) {
    Tensor b = helion::empty(sizes, DType::bf16);
    for (int64_t i = 0; i < t.numel(); ++i)
      b.data_ptr<helion::BFloat16>()[i] = helion::BFloat16(t.data_ptr<float>()[i]);
    return b;
  }
  return t;
}

/// Median ms of entry `entry` alone, and its threads per block.
std::pair<double, unsigned> timeForced(int entry, const std::function<void()>& call) {
  helion::rt::forcedShapeEntry().store(entry);
  helion::rt::BenchmarkOptions bo;
  bo.warmupRuns = 2;
  bo.minRuns = 20;
  bo.targetMs = 200;
  double ms = helion::rt::benchmark(call, bo).medianMs;
  unsigned threads = helion::rt::lastLaunchThreads();
  helion::rt::forcedShapeEntry().store(-1);
  return {ms, threads};
}

void checkAccumulate() {
  const int64_t n = int64_t(1) << 26;
  Tensor x = randomTensor({n}, DType::f32, 1), acc0 = randomTensor({n}, DType::f32, 2);
  Tensor dx = x.to(helion::Device::cuda());
  Tensor scratch = acc0.to(helion::Device::cuda());
  std::vector<std::pair<double, unsigned>> forced;
  for (int e = 0; e < 2; ++e)
    forced.push_back(timeForced(e, [&] { acc_gen::accumulate(scratch, dx); }));
  const int fastest = forced[1].first < forced[0].first ? 1 : 0;
  std::printf("accumulate [%lld] f32: candidate 0 %.4f ms (%u threads), candidate 1 %.4f ms "
              "(%u threads)\n",
              (long long)n, forced[0].first, forced[0].second, forced[1].first, forced[1].second);
  Tensor acc = acc0.to(helion::Device::cuda());
  acc_gen::accumulate(acc, dx); // the first call for this shape: the launcher chooses
  unsigned threads = helion::rt::lastLaunchThreads();
  Tensor once = acc.cpu();
  acc_gen::accumulate(acc, dx);
  Tensor twice = acc.cpu();
  double err1 = 0, err2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    float a = acc0.data_ptr<float>()[i], b = x.data_ptr<float>()[i];
    err1 = std::max(err1, double(std::abs(once.data_ptr<float>()[i] - (a + b))));
    err2 = std::max(err2, double(std::abs(twice.data_ptr<float>()[i] - ((a + b) + b))));
  }
  report(threads == forced[size_t(fastest)].second,
         "accumulate: the launcher ran candidate " +
             std::string(threads == forced[1].second ? "1" : "0") + " (" +
             std::to_string(threads) + " threads); the fastest alone was candidate " +
             std::to_string(fastest));
  report(err1 == 0 && err2 == 0,
         "accumulate: acc0 + x after one call, acc0 + 2x after two (max err " +
             std::to_string(err1) + ", " + std::to_string(err2) +
             "): the timing never wrote acc");
}

void checkMatmul() {
  const int64_t m = 4096, k = 4096, n = 4096;
  Tensor x = randomTensor({m, k}, DType::bf16, 3), y = randomTensor({k, n}, DType::bf16, 4);
  Tensor dx = x.to(helion::Device::cuda()), dy = y.to(helion::Device::cuda());
  std::vector<std::pair<double, unsigned>> forced;
  for (int e = 0; e < 2; ++e)
    forced.push_back(timeForced(e, [&] { mm_gen::matmul(dx, dy); }));
  const double flops = 2.0 * m * n * k;
  const int fastest = forced[1].first < forced[0].first ? 1 : 0;
  std::printf("matmul 4096^3 bf16: candidate 0 %.4f ms %.1f TFLOP/s (%u threads), candidate 1 "
              "%.4f ms %.1f TFLOP/s (%u threads)\n",
              forced[0].first, flops / forced[0].first / 1e9, forced[0].second, forced[1].first,
              flops / forced[1].first / 1e9, forced[1].second);
  Tensor out = mm_gen::matmul(dx, dy).cpu(); // the first call: the launcher chooses
  unsigned threads = helion::rt::lastLaunchThreads();
  report(threads == forced[size_t(fastest)].second,
         "matmul: the launcher ran candidate " +
             std::string(threads == forced[1].second ? "1" : "0") + " (" +
             std::to_string(threads) + " threads); the fastest alone was candidate " +
             std::to_string(fastest));
  std::mt19937_64 rng(5);
  double worst = 0;
  for (int s = 0; s < 4096; ++s) {
    int64_t i = int64_t(rng() % uint64_t(m)), j = int64_t(rng() % uint64_t(n));
    double ref = 0, scale = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      double p = double(float(x.data_ptr<helion::BFloat16>()[i * k + kk])) *
                 double(float(y.data_ptr<helion::BFloat16>()[kk * n + j]));
      ref += p;
      scale += std::abs(p);
    }
    double got = double(float(out.data_ptr<helion::BFloat16>()[i * n + j]));
    double err = std::abs(got - ref) / (std::abs(ref) * 1e-2 + scale * 1e-3 + 1e-3);
    if (!(err <= worst))
      worst = std::isnan(err) ? INFINITY : err;
  }
  report(worst <= 1, "matmul: 4096 random elements against a float64 dot (worst " +
                         std::to_string(worst) + " x the tolerance)");
}

} // namespace

int main() {
  try {
    checkAccumulate();
    checkMatmul();
  } catch (const std::exception& e) {
    report(false, std::string("exception: ") + e.what());
  }
  std::printf("choice_check: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
