//===- gpu_check.cpp - Generated kernels on the GPU vs float64 references ---===//
//
// Built on the GPU machine by scripts/gpu_check.sh from the launchers that
// scripts/gen_gpu_check.sh generated here. For every variant (kernel x config)
// and shape: fresh random inputs, outputs poisoned (every new device allocation
// is filled with 0xFF bytes, a NaN for floats), result compared with a plain
// float64 loop reference. Then the anchor shapes are timed (CUDA-synchronized
// wall clock over many launches) and GB/s printed. Output: a table on stdout and
// JSON lines in $OUT/gpu_check.jsonl.
//===----------------------------------------------------------------------===//
#include <helion/hl.h>
#include <helion/runtime/CudaBackend.h>
#include <helion/runtime/Generated.h>
#include <helion/runtime/Timing.h>

#include <algorithm>
#include <chrono>
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

/// Runs fn(i) for i in [0, n) on all cores (the references at the anchor shapes
/// are hundreds of millions of elements).
template <class F> void parallelFor(int64_t n, F fn) {
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int64_t i = n * w / workers, e = n * (w + 1) / workers; i < e; ++i) fn(i);
    });
  for (auto& t : threads) t.join();
}

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double get(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
  case DType::f32: return t.data_ptr<float>()[i];
  case DType::f16: return double(t.data_ptr<helion::Half>()[i]);
  case DType::bf16: return double(t.data_ptr<helion::BFloat16>()[i]);
  case DType::i64: return double(t.data_ptr<int64_t>()[i]);
  case DType::i32: return double(t.data_ptr<int32_t>()[i]);
  default: return NAN;
  }
}
void set(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
  case DType::f32: t.data_ptr<float>()[i] = float(v); break;
  case DType::f16: t.data_ptr<helion::Half>()[i] = helion::Half(v); break;
  case DType::bf16: t.data_ptr<helion::BFloat16>()[i] = helion::BFloat16(v); break;
  case DType::i64: t.data_ptr<int64_t>()[i] = int64_t(v); break;
  case DType::i32: t.data_ptr<int32_t>()[i] = int32_t(v); break;
  default: break;
  }
}
/// Normal(0, scale) values from a counter-based hash of a fresh seed (Box-Muller).
Tensor randn(std::vector<int64_t> sizes, DType dt, double scale = 1.0) {
  Tensor t = helion::empty(sizes, dt);
  const uint64_t seed = rng();
  const int64_t n = t.numel();
  parallelFor((n + 4095) / 4096, [&](int64_t c) {
    for (int64_t i = c * 4096; i < std::min(n, (c + 1) * 4096); ++i) {
      uint64_t h = mix(seed + 0x9e3779b97f4a7c15ull * uint64_t(i + 1));
      double u1 = (double((h >> 11) & ((1ull << 26) - 1)) + 0.5) / double(1ull << 26);
      double u2 = double(h >> 38) / double(1ull << 26);
      set(t, i, scale * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }
  });
  return t;
}
Tensor gpu(const Tensor& t) { return t.to(helion::Device::cuda()); }
std::vector<double> host(const Tensor& t) {
  Tensor c = t.cpu();
  std::vector<double> v(c.numel());
  const int64_t n = c.numel();
  parallelFor((n + 4095) / 4096, [&](int64_t k) {
    for (int64_t i = k * 4096; i < std::min(n, (k + 1) * 4096); ++i) v[i] = get(c, i);
  });
  return v;
}
const char* dn(DType dt) {
  static std::map<DType, std::string> names;
  auto& n = names[dt];
  if (n.empty())
    n = std::string(helion::dtype_name(dt));
  return n.c_str();
}
double tolerance(DType dt) { return dt == DType::f32 ? 2e-5 : dt == DType::f16 ? 2e-3 : 1.6e-2; }

/// max |got - want| / max(|want|, 1): NaN (an unwritten poisoned output) fails.
double maxError(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size())
    return INFINITY;
  double e = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i]));
    if (!(d <= 1e30))
      return INFINITY;
    e = std::max(e, d);
  }
  return e;  // a linear pass: cheap next to the copies
}

// --- float64 references ----------------------------------------------------
std::vector<double> vals(const Tensor& t) { return host(t); }
std::vector<double> refAdd(const Tensor& x, const Tensor& y) {
  auto a = vals(x), b = vals(y);
  parallelFor(int64_t(a.size()), [&](int64_t i) { a[i] += b[i]; });
  return a;
}
std::vector<double> refSoftmax(const Tensor& x) {
  auto a = vals(x);
  int64_t m = x.size(0), n = x.size(1);
  parallelFor(m, [&](int64_t i) {
    double mx = -INFINITY, s = 0;
    for (int64_t j = 0; j < n; ++j) mx = std::max(mx, a[i * n + j]);
    for (int64_t j = 0; j < n; ++j) s += std::exp(a[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j) a[i * n + j] = std::exp(a[i * n + j] - mx) / s;
  });
  return a;
}
std::vector<double> refSum(const Tensor& x) {
  auto a = vals(x);
  int64_t m = x.size(0), n = x.size(1);
  std::vector<double> r(m, 0);
  parallelFor(m, [&](int64_t i) {
    for (int64_t j = 0; j < n; ++j) r[i] += a[i * n + j];
  });
  return r;
}
std::vector<double> refNorm(const Tensor& x, const Tensor& w, const Tensor* b, double eps) {
  auto a = vals(x), wv = vals(w);
  std::vector<double> bv = b ? vals(*b) : std::vector<double>();
  int64_t m = x.size(0), n = x.size(1);
  parallelFor(m, [&](int64_t i) {
    double mean = 0, var = 0;
    if (b) {
      for (int64_t j = 0; j < n; ++j) mean += a[i * n + j];
      mean /= n;
    }
    for (int64_t j = 0; j < n; ++j) var += (a[i * n + j] - mean) * (a[i * n + j] - mean);
    var /= n;
    for (int64_t j = 0; j < n; ++j)
      a[i * n + j] = (a[i * n + j] - mean) / std::sqrt(var + eps) * wv[j] + (b ? bv[j] : 0.0);
  });
  return a;
}
std::vector<double> refCrossEntropy(const Tensor& logits, const Tensor& labels) {
  auto a = vals(logits), l = vals(labels);
  int64_t m = logits.size(0), n = logits.size(1);
  std::vector<double> r(m);
  parallelFor(m, [&](int64_t i) {
    double mx = -INFINITY, s = 0;
    for (int64_t j = 0; j < n; ++j) mx = std::max(mx, a[i * n + j]);
    for (int64_t j = 0; j < n; ++j) s += std::exp(a[i * n + j] - mx);
    r[i] = mx + std::log(s) - a[i * n + int64_t(l[i])];
  });
  return r;
}

// --- running ------------------------------------------------------------------
int failures = 0, checks = 0;
FILE* jsonl = nullptr;

void report(const std::string& kernel, const std::string& variant, const std::string& shape,
            DType dt, double err) {
  bool ok = err <= tolerance(dt);
  ++checks;
  failures += !ok;
  std::printf("%-4s %-16s %-10s %-18s %-5s max_rel_err=%.3g\n", ok ? "ok" : "FAIL", kernel.c_str(),
              variant.c_str(), shape.c_str(), dn(dt), err);
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\":\"check\",\"kernel\":\"%s\",\"variant\":\"%s\",\"shape\":\"%s\","
                 "\"dtype\":\"%s\",\"max_rel_err\":%.6g,\"ok\":%s}\n",
                 kernel.c_str(), variant.c_str(), shape.c_str(), dn(dt), err,
                 ok ? "true" : "false");
}

const helion::DeviceBackend* realBackend = nullptr;
const helion::DeviceBackend* poisonBackend = nullptr;

/// GB/s from the median of CUDA-event-timed runs. Outputs are not poisoned
/// while timing (the fill would be timed too).
double timeIt(const std::function<void()>& f, double bytes) {
  helion::set_device_backend(helion::DeviceType::CUDA, realBackend);
  auto r = helion::rt::benchmark(f, {.warmupRuns = 3, .minRuns = 20, .targetMs = 200});
  helion::set_device_backend(helion::DeviceType::CUDA, poisonBackend);
  return bytes / (r.medianMs * 1e-3) / 1e9;
}

void bench(const std::string& kernel, const std::string& variant, const std::string& shape,
           DType dt, double gbps, double us) {
  std::printf("BENCH %-16s %-10s %-18s %-5s %8.1f GB/s %9.1f us\n", kernel.c_str(),
              variant.c_str(), shape.c_str(), dn(dt), gbps, us);
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\":\"bench\",\"kernel\":\"%s\",\"variant\":\"%s\",\"shape\":\"%s\","
                 "\"dtype\":\"%s\",\"gbps\":%.1f,\"us\":%.2f}\n",
                 kernel.c_str(), variant.c_str(), shape.c_str(), dn(dt), gbps, us);
}

std::string shapeStr(std::vector<int64_t> s) {
  std::string r;
  for (auto v : s) r += (r.empty() ? "" : "x") + std::to_string(v);
  return r;
}


struct Variant {
  const char* kernel;
  const char* name;
  void (*run)(const Variant&, bool bench);
};

using F1 = Tensor (*)(const Tensor&);
using F2 = Tensor (*)(const Tensor&, const Tensor&);

template <F2 F> void runAdd(const Variant& v, bool doBench) {
  for (auto [shape, dt] : std::vector<std::pair<std::vector<int64_t>, DType>>{
           {{1000, 777}, DType::f32}, {{3, 50, 77}, DType::f16}, {{8192, 8192}, DType::bf16}}) {
    Tensor x = randn(shape, dt), y = randn(shape, dt);
    Tensor xg = gpu(x), yg = gpu(y);
    report(v.kernel, v.name, shapeStr(shape), dt, maxError(host(F(xg, yg)), refAdd(x, y)));
    if (doBench && shape[0] == 1000) {
      // The launch path on the host (allocation of the output included).
      helion::set_device_backend(helion::DeviceType::CUDA, realBackend);
      double us = helion::rt::hostSecondsPerCall([&] { F(xg, yg); }) * 1e6;
      helion::set_device_backend(helion::DeviceType::CUDA, poisonBackend);
      std::printf("HOST %-16s %-10s %.2f us per call\n", v.kernel, v.name, us);
      if (jsonl)
        std::fprintf(jsonl, "{\"kind\":\"host\",\"kernel\":\"%s\",\"variant\":\"%s\",\"us\":%.3f}\n",
                     v.kernel, v.name, us);
    }
    if (doBench && shape[0] == 8192) {
      double bytes = 3.0 * x.numel() * x.element_size();
      double gbps = timeIt([&] { F(xg, yg); }, bytes);
      bench(v.kernel, v.name, shapeStr(shape), dt, gbps, bytes / gbps / 1e3);
    }
  }
}

template <F1 F> void runSoftmax(const Variant& v, bool doBench) {
  for (auto [shape, dt] : std::vector<std::pair<std::vector<int64_t>, DType>>{
           {{257, 1000}, DType::f32}, {{64, 4097}, DType::bf16}, {{4096, 1024}, DType::bf16},
           {{8192, 8192}, DType::bf16}, {{24, 100003}, DType::f32}}) { // the last: long rows
    Tensor x = randn(shape, dt, 2.0);
    Tensor xg = gpu(x);
    report(v.kernel, v.name, shapeStr(shape), dt, maxError(host(F(xg)), refSoftmax(x)));
    // 8192 x 8192: the anchor (benchmarks/report.py); 4096 x 1024: short rows, several
    // per program (printed, not in the anchor table).
    if (doBench && (shape[0] == 8192 || shape[0] == 4096)) {
      double bytes = 2.0 * x.numel() * x.element_size();
      double gbps = timeIt([&] { F(xg); }, bytes);
      bench(v.kernel, v.name, shapeStr(shape), dt, gbps, bytes / gbps / 1e3);
    }
  }
}

template <F1 F> void runSum(const Variant& v, bool doBench) {
  for (auto [shape, dt] : std::vector<std::pair<std::vector<int64_t>, DType>>{
           {{100, 3000}, DType::f32}, {{37, 9000}, DType::bf16}, {{10240, 10240}, DType::f32}}) {
    Tensor x = randn(shape, dt);
    Tensor xg = gpu(x);
    // A sum of n terms of size ~1 is ~sqrt(n): compare relative to that scale.
    auto want = refSum(x);
    auto got = host(F(xg));
    double scale = std::sqrt(double(shape[1]));
    for (auto& w : want) w /= scale;
    for (auto& g : got) g /= scale;
    report(v.kernel, v.name, shapeStr(shape), dt, maxError(got, want));
    if (doBench && shape[0] == 10240) {
      double bytes = 1.0 * x.numel() * x.element_size() + shape[0] * x.element_size();
      double gbps = timeIt([&] { F(xg); }, bytes);
      bench(v.kernel, v.name, shapeStr(shape), dt, gbps, bytes / gbps / 1e3);
    }
  }
}

template <Tensor (*F)(const Tensor&, const Tensor&, double)>
void runRms(const Variant& v, bool doBench) {
  for (auto [shape, dt] : std::vector<std::pair<std::vector<int64_t>, DType>>{
           {{100, 1000}, DType::f32}, {{33, 4100}, DType::bf16}, {{2048, 8192}, DType::f16}}) {
    Tensor x = randn(shape, dt), w = randn({shape[1]}, dt);
    Tensor xg = gpu(x), wg = gpu(w);
    report(v.kernel, v.name, shapeStr(shape), dt,
           maxError(host(F(xg, wg, 1e-5)), refNorm(x, w, nullptr, 1e-5)));
    if (doBench && shape[0] == 2048) {
      double bytes = 2.0 * x.numel() * x.element_size() + shape[1] * x.element_size();
      double gbps = timeIt([&] { F(xg, wg, 1e-5); }, bytes);
      bench(v.kernel, v.name, shapeStr(shape), dt, gbps, bytes / gbps / 1e3);
    }
  }
}

template <Tensor (*F)(const Tensor&, const Tensor&, const Tensor&, double)>
void runLayerNorm(const Variant& v, bool doBench) {
  for (auto [shape, dt] : std::vector<std::pair<std::vector<int64_t>, DType>>{
           {{100, 1000}, DType::f32}, {{33, 4100}, DType::bf16}, {{4096, 10240}, DType::f16}}) {
    Tensor x = randn(shape, dt), w = randn({shape[1]}, dt), b = randn({shape[1]}, dt);
    Tensor xg = gpu(x), wg = gpu(w), bg = gpu(b);
    report(v.kernel, v.name, shapeStr(shape), dt,
           maxError(host(F(xg, wg, bg, 1e-5)), refNorm(x, w, &b, 1e-5)));
    if (doBench && shape[0] == 4096) {
      double bytes = 2.0 * x.numel() * x.element_size() + 2 * shape[1] * x.element_size();
      double gbps = timeIt([&] { F(xg, wg, bg, 1e-5); }, bytes);
      bench(v.kernel, v.name, shapeStr(shape), dt, gbps, bytes / gbps / 1e3);
    }
  }
}

template <F2 F> void runCrossEntropy(const Variant& v, bool doBench) {
  for (auto [shape, dt] : std::vector<std::pair<std::vector<int64_t>, DType>>{
           {{64, 5000}, DType::f32}, {{100, 33000}, DType::f32}}) {
    Tensor x = randn(shape, dt, 3.0);
    Tensor l = helion::empty({shape[0]}, DType::i64);
    std::uniform_int_distribution<int64_t> pick(0, shape[1] - 1);
    for (int64_t i = 0; i < shape[0]; ++i) set(l, i, double(pick(rng)));
    Tensor xg = gpu(x), lg = gpu(l);
    report(v.kernel, v.name, shapeStr(shape), dt, maxError(host(F(xg, lg)), refCrossEntropy(x, l)));
  }
  if (doBench) {
    std::vector<int64_t> shape{4096, 131072};
    Tensor x = randn(shape, DType::f32, 3.0);
    Tensor l = helion::empty({shape[0]}, DType::i64);
    std::uniform_int_distribution<int64_t> pick(0, shape[1] - 1);
    for (int64_t i = 0; i < shape[0]; ++i) set(l, i, double(pick(rng)));
    Tensor xg = gpu(x), lg = gpu(l);
    report(v.kernel, v.name, shapeStr(shape), DType::f32,
           maxError(host(F(xg, lg)), refCrossEntropy(x, l)));
    double bytes = 4.0 * shape[0] * shape[1] + 12.0 * shape[0];
    double gbps = timeIt([&] { F(xg, lg); }, bytes);
    bench(v.kernel, v.name, shapeStr(shape), DType::f32, gbps, bytes / gbps / 1e3);
  }
}

} // namespace

#include "variants.inc"

namespace {
} // namespace

int main(int argc, char** argv) {
  bool doBench = argc > 1 && std::string(argv[1]) == "--bench";
  if (const char* out = std::getenv("OUT"))
    jsonl = std::fopen((std::string(out) + "/gpu_check.jsonl").c_str(), "w");
  // Poison every new device allocation: an output element the kernel forgets to
  // write stays NaN (0xFFFF.. bytes) and fails the check.
  static const helion::DeviceBackend* real = helion::device_backend(helion::DeviceType::CUDA);
  static helion::DeviceBackend poisoned = *real;
  poisoned.allocate = [](std::size_t bytes, int dev) {
    void* p = real->allocate(bytes, dev);
    helion::rt::cudaMemset(p, dev, 0xFF, bytes);
    return p;
  };
  helion::set_device_backend(helion::DeviceType::CUDA, &poisoned);
  realBackend = real;
  poisonBackend = &poisoned;
  const char* only = std::getenv("GPU_CHECK_ONLY");  // comma-separated kernel names

  for (const Variant& v : variants()) {
    if (only && !std::strstr(only, v.kernel)) continue;
    auto t0 = std::chrono::steady_clock::now();
    try {
      v.run(v, doBench);
    } catch (const std::exception& e) {
      ++checks;
      ++failures;
      std::printf("FAIL %-16s %-10s exception: %s\n", v.kernel, v.name, e.what());
    }
    std::printf("     %-16s %-10s took %.1f s\n", v.kernel, v.name,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
  }
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  if (jsonl)
    std::fclose(jsonl);
  return failures ? 1 : 0;
}
