// gemm_check.cu: correctness and speed of the device library's GEMMs
// (helion/gemm_sm90.cuh, helion/gemm_sm80.cuh) next to cuBLAS, in one run.
//
// Build (scripts/gemm_check.sh does it):
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I runtime/device \
//        test/gpu/gemm_check.cu -lcuda -lcublas -o gemm_check
// Run: gemm_check [--out FILE.jsonl] [--quick] [--only SUBSTR] [--skip SUBSTR] [--no-check]
// (--only / --skip keep / drop the configurations whose names contain SUBSTR)
//
// Checks, for bf16 and f16, every configuration below at 4096^3 and 8192^3
// against cuBLAS (f32 output, f32 accumulation) and at ragged shapes against a
// float64 reference computed on the GPU from the same inputs: ||C - ref||_F /
// ||ref||_F, NaN count, and writes outside C (row padding stays poisoned).
// Inputs are fresh random values for every shape; C is poisoned with NaN
// before every run; row padding of A and B (strides rounded up to 8 elements,
// as TMA needs 16-byte strides) is NaN and must never be read. Then times each
// configuration at 4096^3 and 8192^3 next to cublasGemmEx with bf16/f16 output:
// the two launched alternately, cudaEvents around each, 5 warm-up rounds,
// medians of 40 (paired_median_ms says why).
#include "helion/gemm_sm90.cuh"
#ifndef GEMM_CHECK_NO_SM80
#include "helion/gemm_sm80.cuh"
#endif

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace hd = helion::dev;
using hd::bf16;
using hd::f16;
using hd::int64;

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CHECK_CU(x)                                                                                \
  do {                                                                                             \
    CUresult e_ = (x);                                                                             \
    if (e_ != CUDA_SUCCESS) {                                                                      \
      const char* s_ = nullptr;                                                                    \
      cuGetErrorName(e_, &s_);                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
#define CHECK_CUBLAS(x)                                                                            \
  do {                                                                                             \
    cublasStatus_t e_ = (x);                                                                       \
    if (e_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)e_);      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static FILE* g_json = nullptr;

// ---------------------------------------------------------------------------
// Device helpers: random fill, poison, transpose, float64 reference, error.

template <class T> __device__ __forceinline__ T from_f(float v) { return hd::from_compute<T>(v); }
template <class T> __device__ __forceinline__ float to_f(T v) { return hd::to_compute(v); }
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }

__device__ __forceinline__ unsigned hash32(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<unsigned>(x);
}

/// rows x cols of uniform values in [-1, 1) at stride ld; the padding columns
/// [cols, ld) get NaN (they must never be read).
template <class T>
__global__ void fill_random(T* p, int64 rows, int64 cols, int64 ld, unsigned long long seed) {
  const int64 total = rows * ld;
  for (int64 i = blockIdx.x * (int64)blockDim.x + threadIdx.x; i < total;
       i += (int64)gridDim.x * blockDim.x) {
    const int64 c = i % ld;
    float v = (hash32(seed * 0x9E3779B97F4A7C15ull + i) >> 8) * (1.0f / 8388608.0f) - 1.0f;
    p[i] = from_f<T>(c < cols ? v : __int_as_float(0x7fc00000));
  }
}

template <class T> __global__ void fill_nan(T* p, int64 n) {
  for (int64 i = blockIdx.x * (int64)blockDim.x + threadIdx.x; i < n;
       i += (int64)gridDim.x * blockDim.x)
    p[i] = from_f<T>(__int_as_float(0x7fc00000));
}

/// dst[N, K] (stride ldd) = src[K, N] (stride lds)^T; padding of dst = NaN.
template <class T>
__global__ void transpose(T* dst, const T* src, int64 K, int64 N, int64 lds, int64 ldd) {
  const int64 total = N * ldd;
  for (int64 i = blockIdx.x * (int64)blockDim.x + threadIdx.x; i < total;
       i += (int64)gridDim.x * blockDim.x) {
    const int64 n = i / ldd, k = i % ldd;
    dst[i] = k < K ? src[k * lds + n] : from_f<T>(__int_as_float(0x7fc00000));
  }
}

/// ref[M, N] = A @ B in float64 (one thread per output; fine for small shapes).
template <class T>
__global__ void reference_f64(double* ref, const T* a, const T* b, int M, int N, int K, int64 lda,
                              int64 ldb) {
  const int64 i = blockIdx.x * (int64)blockDim.x + threadIdx.x;
  if (i >= (int64)M * N)
    return;
  const int64 m = i / N, n = i % N;
  double s = 0;
  for (int k = 0; k < K; ++k)
    s += (double)to_f(a[m * lda + k]) * (double)to_f(b[k * ldb + n]);
  ref[i] = s;
}

__global__ void widen_f32(double* dst, const float* src, int64 n) {
  for (int64 i = blockIdx.x * (int64)blockDim.x + threadIdx.x; i < n;
       i += (int64)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

/// acc[0] += sum (c - ref)^2, acc[1] += sum ref^2, acc[2] += NaN/Inf count in
/// C[M, N], acc[3] += non-poisoned (written) padding elements [N, ldc).
template <class T>
__global__ void compare(double* acc, const T* c, const double* ref, int M, int N, int64 ldc) {
  double d2 = 0, r2 = 0, bad = 0, stray = 0;
  const int64 total = (int64)M * ldc;
  for (int64 i = blockIdx.x * (int64)blockDim.x + threadIdx.x; i < total;
       i += (int64)gridDim.x * blockDim.x) {
    const int64 m = i / ldc, n = i % ldc;
    const float v = to_f(c[i]);
    if (n >= N) {
      stray += isnan(v) ? 0 : 1;
      continue;
    }
    const double r = ref[m * N + n];
    if (!isfinite(v))
      bad += 1;
    else
      d2 += (v - r) * (v - r);
    r2 += r * r;
  }
  atomicAdd(&acc[0], d2);
  atomicAdd(&acc[1], r2);
  atomicAdd(&acc[2], bad);
  atomicAdd(&acc[3], stray);
}

// ---------------------------------------------------------------------------
// Epilogue functors (form (a): pairs of adjacent columns).

template <class T> struct StorePairs {
  T* c;
  int64 ldc;
  int n;
  __device__ __forceinline__ void operator()(int64 row, int64 col, float v0, float v1) const {
    T* p = c + row * ldc + col;
    if (col + 1 < n && (ldc % 2) == 0) {
      if constexpr (sizeof(T) == 2) {
        const unsigned lo = hd::from_compute<T>(v0).bits, hi = hd::from_compute<T>(v1).bits;
        *reinterpret_cast<unsigned*>(p) = lo | (hi << 16);
      } else {
        *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
      }
    } else {
      p[0] = from_f<T>(v0);
      if (col + 1 < n)
        p[1] = from_f<T>(v1);
    }
  }
};

// ---------------------------------------------------------------------------
// Host side

template <class T> constexpr cudaDataType cuda_type();
template <> constexpr cudaDataType cuda_type<bf16>() { return CUDA_R_16BF; }
template <> constexpr cudaDataType cuda_type<f16>() { return CUDA_R_16F; }
template <class T> const char* type_name();
template <> const char* type_name<bf16>() { return "bf16"; }
template <> const char* type_name<f16>() { return "f16"; }

static int64 round8(int64 x) { return (x + 7) / 8 * 8; }

/// A row-major rows x cols matrix at stride ld (elements) tiled in boxRows x
/// boxCols boxes, 128-byte swizzle: what helion::rt::makeTensorMap builds.
static bool g_mapFailed = false;
static bool g_promo256 = false; // L2 promotion of the maps: 256 B (else 128 B, as makeTensorMap)

static hd::TensorMap make_map(const void* p, int elemBytes, int64 rows, int64 cols, int64 ld,
                              int boxRows, int boxCols) {
  CUtensorMap map;
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  cuuint64_t strides[1] = {(cuuint64_t)(ld * elemBytes)};
  cuuint32_t box[2] = {(cuuint32_t)boxCols, (cuuint32_t)boxRows};
  cuuint32_t estr[2] = {1, 1};
  CUtensorMapDataType type =
      elemBytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUresult r = cuTensorMapEncodeTiled(&map, type, 2, const_cast<void*>(p), dims, strides, box,
                                      estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B,
                                      g_promo256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                                 : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d) for %lldx%lld ld %lld box %dx%d\n",
                 (int)r, (long long)rows, (long long)cols, (long long)ld, boxRows, boxCols);
    g_mapFailed = true;
  }
  hd::TensorMap out;
  static_assert(sizeof(out) == sizeof(map), "TensorMap is a CUtensorMap");
  std::memcpy(&out, &map, sizeof(map));
  return out;
}

/// One problem: inputs, output and reference on the device.
template <class T> struct Problem {
  int M, N, K;
  int64 lda, ldb, ldbt, ldc;
  T *a = nullptr, *b = nullptr, *bt = nullptr, *c = nullptr;
  double* ref = nullptr;
  double* acc = nullptr;
  float* ref32 = nullptr;

  Problem(int m, int n, int k) : M(m), N(n), K(k) {
    lda = round8(K);
    ldb = round8(N);
    ldbt = round8(K);
    ldc = round8(N);
    CHECK_CUDA(cudaMalloc(&a, sizeof(T) * M * lda));
    CHECK_CUDA(cudaMalloc(&b, sizeof(T) * K * ldb));
    CHECK_CUDA(cudaMalloc(&bt, sizeof(T) * N * ldbt));
    CHECK_CUDA(cudaMalloc(&c, sizeof(T) * M * ldc));
    CHECK_CUDA(cudaMalloc(&ref, sizeof(double) * M * N));
    CHECK_CUDA(cudaMalloc(&acc, sizeof(double) * 4));
  }
  ~Problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(bt);
    cudaFree(c);
    cudaFree(ref);
    cudaFree(acc);
    cudaFree(ref32);
  }
  void randomize(unsigned long long seed) {
    fill_random<<<1024, 256>>>(a, M, K, lda, seed);
    fill_random<<<1024, 256>>>(b, K, N, ldb, seed + 1);
    transpose<<<1024, 256>>>(bt, b, K, N, ldb, ldbt);
    CHECK_CUDA(cudaGetLastError());
  }
  void poison() {
    fill_nan<<<1024, 256>>>(c, (int64)M * ldc);
    CHECK_CUDA(cudaGetLastError());
  }
};

struct Errors {
  double rel, nan, stray;
};

template <class T> static Errors compare_to_ref(Problem<T>& p) {
  CHECK_CUDA(cudaMemset(p.acc, 0, sizeof(double) * 4));
  compare<<<1024, 256>>>(p.acc, p.c, p.ref, p.M, p.N, p.ldc);
  CHECK_CUDA(cudaGetLastError());
  double h[4];
  CHECK_CUDA(cudaMemcpy(h, p.acc, sizeof(h), cudaMemcpyDeviceToHost));
  return {std::sqrt(h[0] / std::max(h[1], 1e-300)), h[2], h[3]};
}

static cublasHandle_t g_cublas;

/// C = A @ B through cuBLAS (row-major as the transposed column-major product).
template <class T, class TC>
static void cublas_gemm(const Problem<T>& p, TC* c, cudaDataType ctype) {
  const float alpha = 1.f, beta = 0.f;
  CHECK_CUBLAS(cublasGemmEx(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, p.N, p.M, p.K, &alpha, p.b,
                            cuda_type<T>(), p.ldb, p.a, cuda_type<T>(), p.lda, &beta, c, ctype,
                            p.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/// The reference: float64 on the GPU for small shapes, cuBLAS with f32 output
/// (f32 accumulation) for the large ones.
template <class T> static void make_reference(Problem<T>& p) {
  const int64 mn = (int64)p.M * p.N;
  if ((double)p.M * p.N * p.K <= 3e9) {
    reference_f64<<<(mn + 255) / 256, 256>>>(p.ref, p.a, p.b, p.M, p.N, p.K, p.lda, p.ldb);
  } else {
    if (!p.ref32)
      CHECK_CUDA(cudaMalloc(&p.ref32, sizeof(float) * p.M * p.ldc));
    cublas_gemm(p, p.ref32, CUDA_R_32F);
    // compact [M, ldc] -> [M, N] (ldc == N for these shapes)
    if (p.ldc != p.N) {
      std::fprintf(stderr, "large reference shapes need N %% 8 == 0\n");
      std::exit(1);
    }
    widen_f32<<<1024, 256>>>(p.ref, p.ref32, mn);
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
}

// ---------------------------------------------------------------------------
// Configurations

static int g_numSMs = 0;

/// A launcher for one kernel configuration on a Problem.
template <class T> struct Variant {
  std::string name;
  void (*prepare)(); // raises the shared-memory limit once
  void (*launch)(Problem<T>&, int groupM, cudaStream_t);
  int groupM = 8;
  bool promo256 = false;
  void run(Problem<T>& p) const {
    g_promo256 = promo256;
    launch(p, groupM, 0);
  }
};

/// CTAs that can run at once: #SMs, or for clusters what the occupancy API says.
template <class G, class Epi> static int& sm90_max_ctas() {
  static int n = 0;
  return n;
}

template <class G, bool Tma, class T> static void sm90_prepare() {
  using Epi = std::conditional_t<Tma, hd::IdentityTransform, StorePairs<T>>;
  auto k = &hd::gemm_kernel<G, Epi>;
  CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, G::kSmemBytes));
  int n = g_numSMs;
  if (G::kCluster > 1) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(G::kCluster * 64);
    cfg.blockDim = dim3(G::kThreads);
    cfg.dynamicSmemBytes = G::kSmemBytes;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = G::kCluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveClusters(&clusters, k, &cfg));
    n = clusters * G::kCluster;
    std::printf("cluster %d: %d clusters fit (%d CTAs)\n", G::kCluster, clusters, n);
  }
  sm90_max_ctas<G, Epi>() = n;
}

template <class G, class Epi>
static void sm90_kernel_launch(int grid, cudaStream_t stream, const hd::TensorMap& ma,
                               const hd::TensorMap& mb, const hd::TensorMap& mc, int M, int N,
                               int K, int groupM, Epi epi) {
  if constexpr (G::kCluster == 1) {
    hd::gemm_kernel<G, Epi>
        <<<grid, G::kThreads, G::kSmemBytes, stream>>>(ma, mb, mc, M, N, K, groupM, epi);
  } else {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(G::kThreads);
    cfg.dynamicSmemBytes = G::kSmemBytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = G::kCluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK_CUDA(cudaLaunchKernelEx(&cfg, hd::gemm_kernel<G, Epi>, ma, mb, mc, M, N, K, groupM, epi));
  }
}

template <class G, bool BT, bool Tma, class T>
static void sm90_launch(Problem<T>& p, int groupM, cudaStream_t stream) {
  using Epi = std::conditional_t<Tma, hd::IdentityTransform, StorePairs<T>>;
  hd::TensorMap ma = make_map(p.a, 2, p.M, p.K, p.lda, G::kBoxARows, G::kBoxACols);
  hd::TensorMap mb = BT ? make_map(p.bt, 2, p.N, p.K, p.ldbt, G::kBoxBRows, G::kBoxBCols)
                        : make_map(p.b, 2, p.K, p.N, p.ldb, G::kBoxBRows, G::kBoxBCols);
  hd::TensorMap mc = make_map(p.c, 2, p.M, p.N, p.ldc, G::kBoxCRows, G::kBoxCCols);
  const int grid = G::gridSize(p.M, p.N, sm90_max_ctas<G, Epi>());
  if (g_mapFailed)
    return;
  if constexpr (Tma)
    sm90_kernel_launch<G>(grid, stream, ma, mb, mc, p.M, p.N, p.K, groupM, hd::IdentityTransform{});
  else
    sm90_kernel_launch<G>(grid, stream, ma, mb, mc, p.M, p.N, p.K, groupM,
                          StorePairs<T>{p.c, p.ldc, p.N});
}

template <class T, int BM, int BN, int Stages, int Consumers, bool BT, bool Persistent, bool Tma,
          int Cluster = 1>
static Variant<T> sm90_variant(int groupM = 8, bool promo256 = false) {
  using G = hd::Gemm<T, T, BM, BN, 64, Stages, Consumers, BT, Persistent,
                     Tma ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs, Cluster>;
  char name[128];
  std::snprintf(name, sizeof(name), "sm90 %dx%dx64 s%d c%d%s%s%s %s g%d", BM, BN, Stages,
                Consumers, Persistent ? " persist" : "", Cluster > 1 ? " x2" : "", BT ? " bT" : "",
                Tma ? "tma" : "pairs", groupM);
  Variant<T> v;
  v.name = name;
  if (promo256)
    v.name += " L2p256";
  v.promo256 = promo256;
  v.prepare = &sm90_prepare<G, Tma, T>;
  v.launch = &sm90_launch<G, BT, Tma, T>;
  v.groupM = groupM;
  return v;
}

#ifndef GEMM_CHECK_NO_SM80
template <class G, class T> static void sm80_prepare() {
  auto k = &hd::gemm_sm80_kernel<G, StorePairs<T>>;
  CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, G::kSmemBytes));
}

template <class G, bool BT, class T>
static void sm80_launch(Problem<T>& p, int groupM, cudaStream_t stream) {
  StorePairs<T> epi{p.c, p.ldc, p.N};
  const T* b = BT ? p.bt : p.b;
  const int64 ldb = BT ? p.ldbt : p.ldb;
  hd::gemm_sm80_kernel<G, StorePairs<T>><<<G::gridSize(p.M, p.N), G::kThreads, G::kSmemBytes,
                                           stream>>>(p.a, b, p.M, p.N, p.K, p.lda, ldb, groupM, epi);
}

template <class T, int BM, int BN, int Stages, bool BT, int MinBlocks = 1>
static Variant<T> sm80_variant(int groupM = 8) {
  using G = hd::GemmSm80<T, BM, BN, 64, Stages, BT, 2, 4, MinBlocks>;
  char name[128];
  std::snprintf(name, sizeof(name), "sm80 %dx%dx64 s%d%s%s pairs g%d", BM, BN, Stages,
                MinBlocks > 1 ? " 2cta" : "", BT ? " bT" : "", groupM);
  Variant<T> v;
  v.name = name;
  v.prepare = &sm80_prepare<G, T>;
  v.launch = &sm80_launch<G, BT, T>;
  v.groupM = groupM;
  return v;
}
#endif

template <class T> static std::vector<Variant<T>> variants() {
  return {
      sm90_variant<T, 128, 256, 3, 2, false, true, true>(8),
      sm90_variant<T, 128, 256, 3, 2, false, true, true>(16),
      sm90_variant<T, 128, 256, 3, 2, false, true, true>(16, true),
      sm90_variant<T, 128, 256, 4, 2, false, true, true>(8),
      sm90_variant<T, 128, 256, 4, 2, false, true, true>(8, true),
      sm90_variant<T, 128, 256, 4, 2, false, true, true>(16, true),
      sm90_variant<T, 128, 256, 4, 2, false, false, true>(8),
      sm90_variant<T, 128, 256, 4, 2, true, true, true>(8),
      sm90_variant<T, 128, 256, 4, 2, false, true, false>(8),
      sm90_variant<T, 128, 256, 4, 2, true, true, false>(8),
      sm90_variant<T, 128, 128, 5, 1, false, true, true>(8),
      sm90_variant<T, 128, 256, 4, 2, false, true, true, 2>(16),
      sm90_variant<T, 128, 256, 4, 2, false, true, false, 2>(16),
#ifndef GEMM_CHECK_NO_SM80
      sm80_variant<T, 128, 128, 4, false>(8),
      sm80_variant<T, 128, 256, 3, false>(8),
      sm80_variant<T, 128, 256, 3, true>(8),
#endif
  };
}

// ---------------------------------------------------------------------------

struct Row {
  std::string dtype, config;
  int size;
  double tflops, cublas;
};
static std::vector<Row> g_rows;
static int g_failures = 0;

template <class T> static void check_all(std::vector<Variant<T>>& vs, bool quick) {
  const int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1000},
                           {4096, 128, 4096},  {127, 4096, 255},   {333, 201, 77}};
  unsigned long long seed = 1234 + sizeof(T) * 77 + (std::is_same<T, f16>::value ? 5 : 0);
  for (auto& s : shapes) {
    if (quick && s[0] == 8192)
      continue;
    Problem<T> p(s[0], s[1], s[2]);
    p.randomize(seed += 101);
    make_reference(p);
    for (auto& v : vs) {
      if (v.name.find("tma") != std::string::npos && (p.N * 2) % 16 != 0) {
        std::printf("check %-4s %5dx%5dx%5d %-40s n/a: tma_store needs N*2 %% 16 == 0\n",
                    type_name<T>(), p.M, p.N, p.K, v.name.c_str());
        continue;
      }
      p.poison();
      g_mapFailed = false;
      v.run(p);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaDeviceSynchronize());
      Errors e = compare_to_ref(p);
      if (g_mapFailed)
        e.nan = -1; // no launch
      // bf16 output rounding alone gives ~2e-3 (bf16) / ~3e-4 (f16).
      const double tol = std::is_same<T, bf16>::value ? 1e-2 : 2e-3;
      const bool ok = !g_mapFailed && e.rel < tol && e.nan == 0 && e.stray == 0;
      if (!ok)
        ++g_failures;
      std::printf("check %-4s %5dx%5dx%5d %-40s rel %.3e nan %.0f stray %.0f %s\n",
                  type_name<T>(), p.M, p.N, p.K, v.name.c_str(), e.rel, e.nan, e.stray,
                  ok ? "ok" : "FAIL");
      std::fflush(stdout);
      if (g_json)
        std::fprintf(g_json,
                     "{\"kind\":\"check\",\"dtype\":\"%s\",\"M\":%d,\"N\":%d,\"K\":%d,"
                     "\"config\":\"%s\",\"rel_err\":%.4e,\"nan\":%.0f,\"stray\":%.0f,\"pass\":%s}\n",
                     type_name<T>(), p.M, p.N, p.K, v.name.c_str(), e.rel, e.nan, e.stray,
                     ok ? "true" : "false");
      if (g_json)
        std::fflush(g_json);
    }
  }
}

/// Median milliseconds of `f` and of `g`, launched alternately (f, g, f, g,
/// ...) with an event pair around each, after `warm` rounds of both: the two
/// see the same clocks and temperature, which on this power-capped card move
/// more between runs than our differences (cuBLAS 8192^3 read 785 and 711
/// TFLOP/s in two processes a minute apart).
template <class F, class G>
static std::pair<double, double> paired_median_ms(F&& f, G&& g, int warm = 5, int reps = 40) {
  for (int i = 0; i < warm; ++i) {
    f();
    g();
  }
  std::vector<cudaEvent_t> ev(4 * reps);
  for (auto& e : ev)
    CHECK_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventRecord(ev[4 * i]));
    f();
    CHECK_CUDA(cudaEventRecord(ev[4 * i + 1]));
    g();
    CHECK_CUDA(cudaEventRecord(ev[4 * i + 2]));
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> a(reps), b(reps);
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventElapsedTime(&a[i], ev[4 * i], ev[4 * i + 1]));
    CHECK_CUDA(cudaEventElapsedTime(&b[i], ev[4 * i + 1], ev[4 * i + 2]));
  }
  for (auto& e : ev)
    cudaEventDestroy(e);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[reps / 2], b[reps / 2]};
}

template <class T> static void time_all(std::vector<Variant<T>>& vs, bool quick) {
  for (int n : {4096, 8192}) {
    Problem<T> p(n, n, n);
    p.randomize(99 + n);
    const double flop = 2.0 * n * n * n;
    auto tf = [&](double ms) { return flop / (ms * 1e-3) / 1e12; };
    auto cub = [&] { cublas_gemm(p, p.c, cuda_type<T>()); };
    for (auto& v : vs) {
      if (quick && v.name.rfind("sm80", 0) == 0)
        continue;
      auto [cubMs, ms] = paired_median_ms(cub, [&] { v.run(p); });
      g_rows.push_back({type_name<T>(), v.name, n, tf(ms), tf(cubMs)});
      if (g_json)
        std::fprintf(g_json,
                     "{\"kind\":\"time\",\"dtype\":\"%s\",\"n\":%d,\"config\":\"%s\",\"ms\":%.4f,"
                     "\"tflops\":%.2f,\"cublas_ms\":%.4f,\"cublas_tflops\":%.2f,\"ratio\":%.4f}\n",
                     type_name<T>(), n, v.name.c_str(), ms, tf(ms), cubMs, tf(cubMs), cubMs / ms);
    }
  }
}

static std::string g_only, g_skip; // substrings of variant names to keep / drop
static bool g_noCheck = false;

template <class T> static void run_type(bool quick) {
  std::vector<Variant<T>> vs;
  for (auto& v : variants<T>())
    if ((g_only.empty() || v.name.find(g_only) != std::string::npos) &&
        (g_skip.empty() || v.name.find(g_skip) == std::string::npos))
      vs.push_back(v);
  for (auto& v : vs)
    v.prepare();
  if (!g_noCheck)
    check_all(vs, quick);
  time_all(vs, quick);
}

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc)
      g_json = std::fopen(argv[++i], "w");
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      g_only = argv[++i];
    else if (!std::strcmp(argv[i], "--skip") && i + 1 < argc)
      g_skip = argv[++i];
    else if (!std::strcmp(argv[i], "--no-check"))
      g_noCheck = true;
  }
  CHECK_CU(cuInit(0));
  CHECK_CUDA(cudaFree(0));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  g_numSMs = prop.multiProcessorCount;
  std::printf("device: %s, %d SMs, L2 %d MB\n", prop.name, g_numSMs, prop.l2CacheSize >> 20);
  CHECK_CUBLAS(cublasCreate(&g_cublas));
  run_type<bf16>(quick);
  run_type<f16>(quick);

  std::printf("\n%-5s %-5s %-42s %9s %9s %7s   (cuBLAS timed alternately with each)\n",
              "dtype", "n", "config", "TFLOP/s", "cuBLAS", "ratio");
  for (auto& r : g_rows)
    std::printf("%-5s %-5d %-42s %9.1f %9.1f %7.3f\n", r.dtype.c_str(), r.size, r.config.c_str(),
                r.tflops, r.cublas, r.tflops / r.cublas);
  std::printf("%s: %d check failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
  if (g_json)
    std::fclose(g_json);
  cublasDestroy(g_cublas);
  return g_failures ? 1 : 0;
}
