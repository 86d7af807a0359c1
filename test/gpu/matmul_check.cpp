//===- matmul_check.cpp - helionc's tensor-core matmuls on the GPU ----------===//
//
// Built by scripts/matmul_check.sh from the launchers helionc generated here
// (.carry/mm/matmul_variants.inc: examples/matmul.cpp under several configs and
// test/gpu/kernels/matmul_bias.cpp), linked with the runtime; no LLVM needed.
//
//   matmul_check            correctness: bf16 and f16, fresh random inputs,
//                           outputs poisoned (new device memory is 0xFF bytes,
//                           NaN), float64 reference on the CPU (every element up
//                           to 4096 x 128 x 4096; 16384 sampled elements and a
//                           NaN scan of all of them at 4096^3 / 8192^3)
//   matmul_check --bench    TFLOP/s of the default config at 4096^3 and 8192^3
//                           (CUDA events, median), JSON lines to $OUT
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

/// Normal(0, 1) values in an [rows, cols] tensor whose rows are `ld` apart (the
/// padding holds NaN and must never be read), on the GPU.
Tensor randnGpu(int64_t rows, int64_t cols, int64_t ld, DType dt, Tensor& storage,
                std::vector<double>& values) {
  Tensor h = helion::empty({rows, ld}, dt);
  values.assign(rows * cols, 0);
  const uint64_t seed = rng();
  parallelFor(rows, [&](int64_t r) {
    std::mt19937_64 g(seed + r);
    std::normal_distribution<double> nd;
    for (int64_t c = 0; c < ld; ++c) {
      double v = c < cols ? nd(g) : NAN;
      if (dt == DType::bf16) h.data_ptr<helion::BFloat16>()[r * ld + c] = helion::BFloat16(v);
      else h.data_ptr<helion::Half>()[r * ld + c] = helion::Half(v);
      if (c < cols) values[r * cols + c] = get(h, r * ld + c);
    }
  });
  storage = h.to(helion::Device::cuda());
  return Tensor::from_blob(storage.data_ptr(), {rows, cols}, {ld, 1}, dt, helion::Device::cuda());
}

const char* dn(DType dt) { return dt == DType::bf16 ? "bf16" : "f16"; }

using MatmulFn = Tensor (*)(const Tensor&, const Tensor&);
using BiasFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&);

struct Variant {
  const char* name;
  MatmulFn matmul = nullptr; // one of the two
  BiasFn bias = nullptr;
  bool big = true;           ///< also check 4096^3 and 8192^3
};

/// One check: C = f(A, B) against float64, with relu(. + bias) for the bias kernel.
void check(const Variant& v, DType dt, int64_t M, int64_t N, int64_t K, int64_t lda = 0) {
  ++checks;
  std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
                      (lda ? " lda=" + std::to_string(lda) : "");
  Tensor sa, sb;
  std::vector<double> a, b, bias;
  Tensor x = randnGpu(M, K, lda ? lda : K, dt, sa, a);
  Tensor y = randnGpu(K, N, N, dt, sb, b);
  Tensor sbias, biasT;
  if (v.bias)
    biasT = randnGpu(1, N, N, dt, sbias, bias);
  Tensor biasVec = v.bias ? Tensor::from_blob(biasT.data_ptr(), {N}, {1}, dt, helion::Device::cuda())
                          : Tensor();
  Tensor out;
  try {
    out = v.bias ? v.bias(x, y, biasVec) : v.matmul(x, y);
    helion::rt::synchronize();
  } catch (const std::exception& e) {
    ++failures;
    std::printf("FAIL %-14s %-5s %-26s exception: %s\n", v.name, dn(dt), shape.c_str(), e.what());
    return;
  }
  Tensor c = out.cpu();
  const bool full = M * N * K <= (int64_t(1) << 31);
  std::vector<std::pair<int64_t, int64_t>> at;
  if (full) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) at.push_back({i, j});
  } else {
    std::uniform_int_distribution<int64_t> pm(0, M - 1), pn(0, N - 1);
    for (int i = 0; i < 16384; ++i) at.push_back({pm(rng), pn(rng)});
    for (int64_t i = 0; i < M; i += 61) at.push_back({i, N - 1 - i % N}); // every tile row
  }
  std::vector<double> bt(b.size()); // B transposed: the reference reads rows
  parallelFor(K, [&](int64_t q) {
    for (int64_t j = 0; j < N; ++j) bt[j * K + q] = b[q * N + j];
  });
  std::vector<double> err(at.size());
  double refMax = 0;
  std::mutex mu;
  parallelFor(int64_t(at.size()), [&](int64_t s) {
    auto [i, j] = at[s];
    double r = 0;
    for (int64_t q = 0; q < K; ++q) r += a[i * K + q] * bt[j * K + q];
    if (v.bias) r = std::max(r + bias[j], 0.0);
    err[s] = std::abs(get(c, i * N + j) - r);
    std::lock_guard<std::mutex> l(mu);
    refMax = std::max(refMax, std::abs(r));
  });
  int64_t nans = 0;
  for (int64_t i = 0; i < M * N; ++i) nans += !std::isfinite(get(c, i));
  double e = 0;
  for (double d : err) e = std::max(e, std::isfinite(d) ? d : INFINITY);
  e /= std::max(refMax, 1.0); // max error relative to the largest reference value
  const double tol = dt == DType::f16 ? 2e-3 : 1.6e-2;
  bool ok = nans == 0 && e <= tol;
  failures += !ok;
  std::printf("%s %-14s %-5s %-26s max rel err %.2e (tol %.0e), non-finite %lld, %s\n",
              ok ? "ok  " : "FAIL", v.name, dn(dt), shape.c_str(), e, tol, (long long)nans,
              full ? "all elements" : "sampled");
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\": \"check\", \"variant\": \"%s\", \"dtype\": \"%s\", \"shape\": \"%s\", "
                 "\"err\": %.3e, \"nonfinite\": %lld, \"ok\": %s}\n",
                 v.name, dn(dt), shape.c_str(), e, (long long)nans, ok ? "true" : "false");
  std::fflush(stdout);
}

/// The unpadded 127 x 4096 x 255 case: x's rows are 510 bytes, which neither
/// TMA nor cp.async can address; the launcher must say so (not crash, not
/// compute garbage).
void checkRejected(const Variant& v, DType dt) {
  ++checks;
  Tensor sa, sb;
  std::vector<double> a, b;
  Tensor x = randnGpu(127, 255, 255, dt, sa, a), y = randnGpu(255, 4096, 4096, dt, sb, b);
  try {
    v.matmul(x, y);
    ++failures;
    std::printf("FAIL %-14s %-5s 127x4096x255 unpadded: no error\n", v.name, dn(dt));
  } catch (const std::exception& e) {
    std::printf("ok   %-14s %-5s 127x4096x255 unpadded rejected: %s\n", v.name, dn(dt), e.what());
  }
}

void bench(const Variant& v, DType dt, int64_t n) {
  Tensor sa, sb;
  std::vector<double> a, b;
  Tensor x = randnGpu(n, n, n, dt, sa, a), y = randnGpu(n, n, n, dt, sb, b);
  v.matmul(x, y); // compile + load
  helion::rt::BenchmarkOptions o;
  o.warmupRuns = 10;
  o.minRuns = 50;
  o.targetMs = 300;
  auto r = helion::rt::benchmark([&] { v.matmul(x, y); }, o);
  double tflops = 2.0 * n * n * n / (r.medianMs * 1e-3) / 1e12;
  std::printf("bench %-14s %-5s %lld^3: %.3f ms, %.1f TFLOP/s\n", v.name, dn(dt), (long long)n,
              r.medianMs, tflops);
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\": \"bench\", \"impl\": \"helionc\", \"variant\": \"%s\", \"dtype\": "
                 "\"%s\", \"n\": %lld, \"ms\": %.5f, \"tflops\": %.2f}\n",
                 v.name, dn(dt), (long long)n, r.medianMs, tflops);
  std::fflush(stdout);
}

} // namespace

#include "matmul_variants.inc"

int main(int argc, char** argv) {
  const bool doBench = argc > 1 && std::string(argv[1]) == "--bench";
  if (const char* out = std::getenv("OUT"))
    jsonl = std::fopen((std::string(out) + (doBench ? "/matmul_bench.jsonl" : "/matmul_check.jsonl")).c_str(), "a");
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
  for (const Variant& v : variants()) {
    for (DType dt : {DType::bf16, DType::f16}) {
      try {
        if (doBench) {
          if (v.matmul && std::string(v.name) == "default")
            for (int64_t n : {4096, 8192}) bench(v, dt, n);
          continue;
        }
        if (v.big) {
          check(v, dt, 4096, 4096, 4096);
          check(v, dt, 8192, 8192, 8192);
        }
        check(v, dt, 1000, 1000, 1000);
        check(v, dt, 4096, 128, 4096);
        check(v, dt, 127, 4096, 255, 256); // x's rows padded to 16-byte multiples
        check(v, dt, 333, 200, 72);
        if (v.matmul && std::string(v.name) == "default")
          checkRejected(v, dt);
      } catch (const std::exception& e) {
        ++failures;
        std::printf("FAIL %-14s %-5s exception: %s\n", v.name, dn(dt), e.what());
      }
    }
  }
  if (!doBench)
    std::printf("%d passed, %d failed\n", checks - failures, failures);
  if (jsonl)
    std::fclose(jsonl);
  return failures ? 1 : 0;
}
