//===- matmul_check.cpp - helionc's tensor-core matmuls on the GPU ----------===//
//
// Built by scripts/matmul_check.sh from the launchers helionc generated here
// (.carry/mm/matmul_variants.inc: examples/matmul.cpp under several configs and
// test/gpu/kernels/matmul_bias.cpp), linked with the runtime; no LLVM needed.
//
//   matmul_check            correctness: bf16, f16 and f32 (tf32), fresh random
//                           inputs, outputs poisoned (new device memory is 0xFF
//                           bytes, NaN), float64 reference on the CPU (every
//                           element up to 4096 x 128 x 4096; 16384 sampled elements
//                           and a NaN scan of all of them at 4096^3 / 8192^3)
//   matmul_check --bench    paired timing: each config marked `bench` (bf16, f16)
//                           and the default config in f32, at 4096^3 and 8192^3,
//                           alternately with cublasGemmEx on the same inputs (same
//                           output dtype; f32 as CUBLAS_COMPUTE_32F_FAST_TF32) in
//                           one process: `helionc x kInner, cuBLAS x kInner` per
//                           round, order swapped each round, medians of 30 rounds;
//                           the power-capped card's clocks move more between runs
//                           than the differences measured. JSON lines to
//                           $OUT/matmul_paired.jsonl
//===----------------------------------------------------------------------===//
#include <helion/hl.h>
#include <helion/runtime/CudaBackend.h>
#include <helion/runtime/Generated.h>
#include <helion/runtime/Timing.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

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
      else if (dt == DType::f16) h.data_ptr<helion::Half>()[r * ld + c] = helion::Half(v);
      else h.data_ptr<float>()[r * ld + c] = float(v);
      if (c < cols) values[r * cols + c] = get(h, r * ld + c);
    }
  });
  storage = h.to(helion::Device::cuda());
  return Tensor::from_blob(storage.data_ptr(), {rows, cols}, {ld, 1}, dt, helion::Device::cuda());
}

const char* dn(DType dt) {
  return dt == DType::bf16 ? "bf16" : dt == DType::f16 ? "f16" : dt == DType::f32 ? "f32" : "?";
}

using MatmulFn = Tensor (*)(const Tensor&, const Tensor&);
using BiasFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&);

struct Variant {
  const char* name;
  MatmulFn matmul = nullptr; // one of the two
  BiasFn bias = nullptr;
  bool big = true;           ///< also check 4096^3 and 8192^3
  bool f32 = false;          ///< also check f32 operands (tf32)
  bool bench = false;        ///< timed by --bench (bf16, f16; f32 too when f32)
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
  // f16 and tf32 keep 10 mantissa bits (f32 output: no output rounding); bf16 7.
  const double tol = dt == DType::bf16 ? 1.6e-2 : 2e-3;
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

#define CHECK_CUDA(x)                                                                            \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)
#define CHECK_CUBLAS(x)                                                                          \
  do {                                                                                           \
    cublasStatus_t e_ = (x);                                                                     \
    if (e_ != CUBLAS_STATUS_SUCCESS) {                                                           \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)e_);    \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

cublasHandle_t g_cublas = nullptr;

/// Row-major C[M, N] = A[M, K] @ B[K, N] through cuBLAS (column-major: C^T = B^T A^T),
/// output in the input dtype like the compiled kernel's; f32 as tf32.
void cublasMatmul(const Tensor& a, const Tensor& b, Tensor& c, int64_t M, int64_t N, int64_t K) {
  const float alpha = 1.f, beta = 0.f;
  const DType dt = a.dtype();
  const cudaDataType t = dt == DType::bf16 ? CUDA_R_16BF : dt == DType::f16 ? CUDA_R_16F : CUDA_R_32F;
  const cublasComputeType_t ct =
      dt == DType::f32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  CHECK_CUBLAS(cublasGemmEx(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K), &alpha,
                            b.data_ptr(), t, int(b.stride(0)), a.data_ptr(), t, int(a.stride(0)),
                            &beta, c.data_ptr(), t, int(N), ct, CUBLAS_GEMM_DEFAULT));
}

/// Medians (ms per call) of f and g timed in alternating rounds of `inner` calls
/// each (f first in even rounds, g first in odd ones), after `warm` rounds.
template <class F, class G>
std::pair<double, double> pairedMedianMs(F&& f, G&& g, int inner, int warm = 3, int reps = 30) {
  for (int i = 0; i < warm; ++i) {
    f();
    g();
  }
  std::vector<cudaEvent_t> ev(4 * reps);
  for (auto& e : ev) CHECK_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    for (int which = 0; which < 2; ++which) {
      const bool isF = (which == 0) == (i % 2 == 0);
      CHECK_CUDA(cudaEventRecord(ev[4 * i + 2 * isF], 0));
      for (int j = 0; j < inner; ++j) isF ? f() : g();
      CHECK_CUDA(cudaEventRecord(ev[4 * i + 2 * isF + 1], 0));
    }
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> a(reps), b(reps);
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventElapsedTime(&b[i], ev[4 * i], ev[4 * i + 1]));     // g
    CHECK_CUDA(cudaEventElapsedTime(&a[i], ev[4 * i + 2], ev[4 * i + 3])); // f
  }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[reps / 2] / inner, b[reps / 2] / inner};
}

struct BenchInputs {
  Tensor sa, sb, x, y, c;
};

/// Paired helionc / cuBLAS TFLOP/s of variant v at n^3 on `in`.
void bench(const Variant& v, DType dt, int64_t n, BenchInputs& in) {
  v.matmul(in.x, in.y); // NVRTC compile + load
  helion::rt::synchronize();
  const int inner = n <= 4096 ? 4 : 2;
  auto [ms, cublasMs] = pairedMedianMs([&] { v.matmul(in.x, in.y); },
                                       [&] { cublasMatmul(in.x, in.y, in.c, n, n, n); }, inner);
  const double flop = 2.0 * n * n * n;
  const double tf = flop / (ms * 1e-3) / 1e12, cub = flop / (cublasMs * 1e-3) / 1e12;
  std::printf("bench %-16s %-5s %5lld^3: helionc %.3f ms %6.1f TFLOP/s | cuBLAS %.3f ms %6.1f | "
              "ratio %.3f (paired)\n",
              v.name, dn(dt), (long long)n, ms, tf, cublasMs, cub, tf / cub);
  if (jsonl)
    std::fprintf(jsonl,
                 "{\"kind\": \"paired\", \"variant\": \"%s\", \"dtype\": \"%s\", \"n\": %lld, "
                 "\"ms\": %.5f, \"tflops\": %.2f, \"cublas_ms\": %.5f, \"cublas_tflops\": %.2f, "
                 "\"ratio\": %.4f}\n",
                 v.name, dn(dt), (long long)n, ms, tf, cublasMs, cub, tf / cub);
  std::fflush(stdout);
  if (jsonl) std::fflush(jsonl);
}

} // namespace

#include "matmul_variants.inc"

int main(int argc, char** argv) {
  const bool doBench = argc > 1 && std::string(argv[1]) == "--bench";
  if (const char* out = std::getenv("OUT"))
    jsonl = std::fopen((std::string(out) + (doBench ? "/matmul_paired.jsonl" : "/matmul_check.jsonl")).c_str(), "a");
  static const helion::DeviceBackend* real = helion::device_backend(helion::DeviceType::CUDA);
  static helion::DeviceBackend poisoned = *real;
  poisoned.allocate = [](std::size_t bytes, int dev) {
    void* p = real->allocate(bytes, dev);
    helion::rt::cudaMemset(p, dev, 0xFF, bytes);
    return p;
  };
  if (!doBench) // timed runs: no memset per fresh allocation
    helion::set_device_backend(helion::DeviceType::CUDA, &poisoned);
  const auto& info = helion::rt::deviceInfo();
  std::printf("device: %s (sm_%d%d, %d SMs)\n", info.name.c_str(), info.major, info.minor,
              info.smCount);
  if (doBench) {
    CHECK_CUBLAS(cublasCreate(&g_cublas));
    for (DType dt : {DType::bf16, DType::f16, DType::f32})
      for (int64_t n : {4096, 8192}) {
        BenchInputs in;
        std::vector<double> a, b;
        in.x = randnGpu(n, n, n, dt, in.sa, a);
        in.y = randnGpu(n, n, n, dt, in.sb, b);
        in.c = helion::empty({n, n}, dt, helion::Device::cuda());
        for (const Variant& v : variants())
          if (v.matmul && v.bench && (dt != DType::f32 || v.f32)) {
            try {
              bench(v, dt, n, in);
            } catch (const std::exception& e) {
              ++failures;
              std::printf("FAIL bench %-14s %-5s exception: %s\n", v.name, dn(dt), e.what());
            }
          }
      }
    cublasDestroy(g_cublas);
  }
  for (const Variant& v : doBench ? std::vector<Variant>{} : variants()) {
    for (DType dt : {DType::bf16, DType::f16, DType::f32}) {
      if (dt == DType::f32 && !v.f32)
        continue;
      try {
        if (v.big) {
          check(v, dt, 4096, 4096, 4096);
          if (dt != DType::f32) // the tf32 path is slower; 4096^3 covers its tiling
            check(v, dt, 8192, 8192, 8192);
        }
        check(v, dt, 1000, 1000, 1000);
        check(v, dt, 4096, 128, 4096);
        // x's rows padded to 16-byte multiples (256 elements: 512 / 1024 bytes)
        check(v, dt, 127, 4096, 255, 256);
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
