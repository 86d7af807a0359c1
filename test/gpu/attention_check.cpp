//===- attention_check.cpp - helionc's flash attention on the GPU -----------===//
//
// Built by scripts/attention_check.sh from the launchers helionc generated here
// (.carry/attn/attention_variants.inc: examples/attention.cpp under several
// configs), linked with the runtime; no LLVM needed.
//
//   attention_check          correctness: bf16 and f16, head dims 64 and 128,
//                            ragged m and n, fresh random inputs, outputs poisoned
//                            (new device memory is 0xFF bytes, NaN), float64
//                            reference on the CPU (every row up to 1000 x 1000;
//                            sampled rows and a NaN scan of everything beyond)
//   attention_check --bench [NAME,...]
//                            TFLOP/s (4 b m n d flops) of the named variants (the
//                            default config if none) at the benchmark shapes (CUDA
//                            events, median), JSON lines to $OUT
//===----------------------------------------------------------------------===//
#include <helion/hl.h>
#include <helion/runtime/CudaBackend.h>
#include <helion/runtime/Generated.h>
#include <helion/runtime/Timing.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using helion::DType;
using helion::Tensor;

namespace {

std::mt19937_64 rng{std::random_device{}()};
std::FILE* jsonl = nullptr;
int checks = 0, failures = 0;

template <class F> void parallelFor(int64_t n, F fn) {
  const int64_t workers =
      std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int64_t i = n * w / workers, e = n * (w + 1) / workers; i < e; ++i) fn(i);
    });
  for (auto& t : threads) t.join();
}

double get(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
  case DType::f16: return double(t.data_ptr<helion::Half>()[i]);
  case DType::bf16: return double(t.data_ptr<helion::BFloat16>()[i]);
  case DType::f32: return t.data_ptr<float>()[i];
  default: return NAN;
  }
}

/// Normal(0, sigma) values in a contiguous [b, rows, d] tensor on the GPU; `values`
/// gets them as stored (rounded to dt).
Tensor randnGpu(int64_t b, int64_t rows, int64_t d, DType dt, double sigma,
                std::vector<double>& values) {
  const int64_t n = b * rows * d;
  Tensor h = helion::empty({b, rows, d}, dt);
  values.assign(n, 0);
  const uint64_t seed = rng();
  parallelFor(b * rows, [&](int64_t r) {
    std::mt19937_64 g(seed + r);
    std::normal_distribution<double> nd(0.0, sigma);
    for (int64_t c = 0; c < d; ++c) {
      const int64_t i = r * d + c;
      if (dt == DType::bf16) h.data_ptr<helion::BFloat16>()[i] = helion::BFloat16(nd(g));
      else h.data_ptr<helion::Half>()[i] = helion::Half(nd(g));
      values[i] = get(h, i);
    }
  });
  return h.to(helion::Device::cuda());
}

const char* dn(DType dt) { return dt == DType::bf16 ? "bf16" : "f16"; }

using AttentionFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&);

struct Variant {
  const char* name;
  AttentionFn fn;
  bool all = true; ///< every shape (else the ragged ones only)
};

/// One check: out = softmax(q k^T / sqrt(d)) v against float64 on the CPU.
void check(const Variant& v, DType dt, int64_t bh, int64_t m, int64_t n, int64_t d,
           double sigmaQ = 1.0) {
  ++checks;
  char shape[96];
  std::snprintf(shape, sizeof shape, "bh=%lld m=%lld n=%lld d=%lld%s", (long long)bh,
                (long long)m, (long long)n, (long long)d, sigmaQ != 1.0 ? " peaky" : "");
  std::vector<double> q, k, vv;
  Tensor tq = randnGpu(bh, m, d, dt, sigmaQ, q), tk = randnGpu(bh, n, d, dt, 1.0, k),
         tv = randnGpu(bh, n, d, dt, 1.0, vv);
  Tensor out;
  try {
    out = v.fn(tq, tk, tv);
    helion::rt::synchronize();
  } catch (const std::exception& e) {
    ++failures;
    std::printf("FAIL %-12s %-5s %-34s exception: %s\n", v.name, dn(dt), shape, e.what());
    return;
  }
  Tensor res = out.cpu();
  const bool full = bh * m <= 8 * 1000;
  std::vector<std::pair<int64_t, int64_t>> rows; // (b, row)
  if (full) {
    for (int64_t b = 0; b < bh; ++b)
      for (int64_t i = 0; i < m; ++i) rows.push_back({b, i});
  } else {
    std::uniform_int_distribution<int64_t> pb(0, bh - 1), pm(0, m - 1);
    for (int i = 0; i < 512; ++i) rows.push_back({pb(rng), pm(rng)});
    rows.push_back({bh - 1, m - 1});
  }
  const double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> err(rows.size()), mag(rows.size());
  parallelFor(int64_t(rows.size()), [&](int64_t s) {
    auto [b, i] = rows[s];
    std::vector<double> p(n), o(d, 0.0);
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      double x = 0;
      for (int64_t c = 0; c < d; ++c) x += q[(b * m + i) * d + c] * k[(b * n + j) * d + c];
      p[j] = x * scale;
      mx = std::max(mx, p[j]);
    }
    for (int64_t j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - mx));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < d; ++c) o[c] += p[j] * vv[(b * n + j) * d + c];
    double e = 0, r = 0;
    for (int64_t c = 0; c < d; ++c) {
      const double want = o[c] / sum, got = get(res, (b * m + i) * d + c);
      e = std::max(e, std::isfinite(got) ? std::abs(got - want) : INFINITY);
      r = std::max(r, std::abs(want));
    }
    err[s] = e;
    mag[s] = r;
  });
  int64_t nans = 0;
  for (int64_t i = 0; i < bh * m * d; ++i) nans += !std::isfinite(get(res, i));
  double e = 0, refMax = 0;
  for (size_t s = 0; s < rows.size(); ++s) {
    e = std::max(e, err[s]);
    refMax = std::max(refMax, mag[s]);
  }
  e /= std::max(refMax, 1e-3); // max error relative to the largest reference value
  // p is rounded to the input dtype before p @ v (as the kernel's IR says), and the
  // output is rounded too: a few units of the dtype's last place.
  const double tol = dt == DType::f16 ? 4e-3 : 2.5e-2;
  const bool ok = nans == 0 && e <= tol;
  failures += !ok;
  std::printf("%s %-12s %-5s %-34s max rel err %.2e (tol %.0e), non-finite %lld, %s\n",
              ok ? "ok  " : "FAIL", v.name, dn(dt), shape, e, tol, (long long)nans,
              full ? "all rows" : "sampled rows");
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\": \"check\", \"variant\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", "
                 "\"err\": %.3e, \"nonfinite\": %lld, \"ok\": %s}\n",
                 v.name, dn(dt), shape, e, (long long)nans, ok ? "true" : "false");
  std::fflush(stdout);
}

/// Shapes the launcher must refuse with a message (never a crash or garbage).
void checkRejected(const Variant& v, DType dt, int64_t d, const char* what) {
  ++checks;
  std::vector<double> q, k, vv;
  Tensor tq = randnGpu(2, 64, d, dt, 1.0, q), tk = randnGpu(2, 64, d, dt, 1.0, k),
         tv = randnGpu(2, 64, d, dt, 1.0, vv);
  try {
    v.fn(tq, tk, tv);
    ++failures;
    std::printf("FAIL %-12s %-5s %s: no error\n", v.name, dn(dt), what);
  } catch (const std::exception& e) {
    std::printf("ok   %-12s %-5s %s rejected: %s\n", v.name, dn(dt), what, e.what());
  }
}

void bench(const Variant& v, DType dt, int64_t bh, int64_t s, int64_t d) {
  std::vector<double> q, k, vv;
  Tensor tq = randnGpu(bh, s, d, dt, 1.0, q), tk = randnGpu(bh, s, d, dt, 1.0, k),
         tv = randnGpu(bh, s, d, dt, 1.0, vv);
  v.fn(tq, tk, tv); // compile + load
  helion::rt::BenchmarkOptions o;
  o.warmupRuns = 10;
  o.minRuns = 30;
  o.targetMs = 400;
  auto r = helion::rt::benchmark([&] { v.fn(tq, tk, tv); }, o);
  const double tflops = 4.0 * bh * s * s * d / (r.medianMs * 1e-3) / 1e12;
  std::printf("bench %-12s %-5s bh=%lld s=%lld d=%lld: %.3f ms, %.1f TFLOP/s\n", v.name, dn(dt),
              (long long)bh, (long long)s, (long long)d, r.medianMs, tflops);
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\": \"bench\", \"impl\": \"helionc\", \"variant\": \"%s\", \"dtype\": "
                 "\"%s\", \"bh\": %lld, \"s\": %lld, \"d\": %lld, \"ms\": %.5f, \"tflops\": %.2f}\n",
                 v.name, dn(dt), (long long)bh, (long long)s, (long long)d, r.medianMs, tflops);
  std::fflush(stdout);
}

} // namespace

#include "attention_variants.inc"

int main(int argc, char** argv) {
  const bool doBench = argc > 1 && std::string(argv[1]) == "--bench";
  if (const char* out = std::getenv("OUT"))
    jsonl = std::fopen(
        (std::string(out) + (doBench ? "/attention_bench.jsonl" : "/attention_check.jsonl")).c_str(),
        "a");
  static const helion::DeviceBackend* real = helion::device_backend(helion::DeviceType::CUDA);
  static helion::DeviceBackend poisoned = *real;
  poisoned.allocate = [](std::size_t bytes, int dev) {
    void* p = real->allocate(bytes, dev);
    helion::rt::cudaMemset(p, dev, 0xFF, bytes);
    return p;
  };
  helion::set_device_backend(helion::DeviceType::CUDA, &poisoned);
  const auto& info = helion::rt::deviceInfo();
  std::printf("device: %s (sm_%d%d, %d SMs)\n", info.name.c_str(), info.major, info.minor,
              info.smCount);
  // CHECK_VARIANTS=NAME,NAME,...: check only those (default: every variant).
  const char* only = std::getenv("CHECK_VARIANTS");
  const std::string checkList = "," + std::string(only ? only : "") + ",";
  for (const Variant& v : variants()) {
    if (!doBench && only && checkList.find("," + std::string(v.name) + ",") == std::string::npos)
      continue;
    for (DType dt : {DType::bf16, DType::f16}) {
      try {
        if (doBench) {
          // --bench NAME,NAME,...: those variants (default: the default config).
          const std::string list = "," + std::string(argc > 2 ? argv[2] : "default") + ",";
          if (list.find("," + std::string(v.name) + ",") != std::string::npos) {
            bench(v, dt, 4 * 32, 4096, 128);
            bench(v, dt, 8 * 16, 2048, 64);
          }
          continue;
        }
        check(v, dt, 8, 1000, 1000, 64);
        check(v, dt, 4, 333, 777, 128);
        check(v, dt, 3, 77, 5, 64);        // fewer keys than one block
        // More tiles than SMs: a persistent CTA takes several, ragged in m and n.
        check(v, dt, 40, 1000, 777, 64);
        check(v, dt, 36, 555, 300, 128);
        if (!v.all)
          continue;
        check(v, dt, 2, 1024, 1024, 128, 4.0); // scores of std 4: peaky softmax
        check(v, dt, 1, 1, 4099, 128);
        check(v, dt, 128, 4096, 4096, 128);    // the benchmark shape, sampled
        checkRejected(v, dt, 96, "head dim 96");
      } catch (const std::exception& e) {
        ++failures;
        std::printf("FAIL %-12s %-5s exception: %s\n", v.name, dn(dt), e.what());
      }
    }
  }
  if (!doBench)
    std::printf("%d passed, %d failed\n", checks - failures, failures);
  if (jsonl)
    std::fclose(jsonl);
  return failures ? 1 : 0;
}
