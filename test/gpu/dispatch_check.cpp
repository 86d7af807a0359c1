//===- dispatch_check.cpp - Shape-keyed configs pick their entry on the GPU --===//
//
// Built on the GPU machine by scripts/dispatch_check.sh over the host file that
// `helionc compile examples/softmax.cpp --config test/gpu/dispatch/softmax_dispatch.json`
// wrote (three entries of softmax_two_pass: 4 warps for x [512, 4096], 8 warps for
// [64, 8192], 2 warps unshaped). Each call must run the entry configs/README.md's rule
// picks, seen through the threads per block of the launch, and give the softmax
// (float64 reference, fresh random inputs, NaN-poisoned output). Prints one line per
// shape and exits nonzero on any failure.
//===----------------------------------------------------------------------===//
#include <helion/hl.h>
#include <helion/runtime/CudaBackend.h>
#include <helion/runtime/Generated.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <string>

namespace generated {
#include "softmax.helion.cpp"
}

using helion::DType;
using helion::Tensor;

int main() {
  struct Case {
    int64_t m, n;
    unsigned threads; // of the entry the rule picks
    const char* why;
  };
  const Case cases[] = {
      {512, 4096, 128, "exact: entry 0"},
      {64, 8192, 256, "exact: entry 1"},
      {100, 1000, 256, "nearest (log2 distance 3.67 to entry 1, 4.39 to entry 0)"},
      {1024, 4096, 128, "nearest: entry 0"},
  };
  std::mt19937_64 rng{std::random_device{}()};
  int failures = 0;
  for (const Case& c : cases) {
    Tensor x = helion::empty({c.m, c.n}, DType::f32);
    std::normal_distribution<float> normal(0.f, 2.f);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.data_ptr<float>()[i] = normal(rng);
    Tensor out = generated::softmax_two_pass(x.to(helion::Device::cuda())).cpu();
    unsigned threads = helion::rt::lastLaunchThreads();
    double worst = 0;
    for (int64_t r = 0; r < c.m; ++r) {
      const float* row = x.data_ptr<float>() + r * c.n;
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < c.n; ++j) mx = std::max(mx, double(row[j]));
      for (int64_t j = 0; j < c.n; ++j) sum += std::exp(double(row[j]) - mx);
      for (int64_t j = 0; j < c.n; ++j) {
        double ref = std::exp(double(row[j]) - mx) / sum;
        double got = out.data_ptr<float>()[r * c.n + j];
        double err = std::abs(got - ref) / (std::abs(ref) + 1e-6);
        if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
      }
    }
    bool ok = threads == c.threads && worst < 1e-3;
    failures += !ok;
    std::printf("%s x[%lld, %lld]: %u threads (want %u, %s), max rel err %.2e\n",
                ok ? "PASS" : "FAIL", (long long)c.m, (long long)c.n, threads, c.threads, c.why,
                worst);
  }
  std::printf("dispatch_check: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
