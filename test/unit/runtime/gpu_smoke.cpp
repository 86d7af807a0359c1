// GPU smoke test of the runtime (scripts/gpu_runtime_check.sh runs it on the
// lent GPU machine): device tensors through helion::Tensor, kernels built on
// the device library compiled by NVRTC and launched through the Driver API,
// each result checked against the CPU. Exit 0 when every check passes.
//
//   gpu_smoke [SUMMARY_FILE]
//   gpu_smoke --compile-only    NVRTC only, for sm_80 and sm_90a: no GPU needed
#include "helion/hl.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/Runtime.h"
#include "helion/runtime/TensorMap.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

using helion::Device;
using helion::Tensor;
namespace hl = helion::hl;
namespace rt = helion::rt;

namespace {

const char *kSource = R"(
#include "helion/device.cuh"
namespace hd = helion::dev;

// out[i] = in[i] * 2 + 1: 16-byte vectors, a masked scalar tail.
template <class T, hd::Evict E>
__global__ void vector_copy_kernel(const T* __restrict__ in, T* __restrict__ out, long long n) {
  constexpr int W = hd::vec16_width<T>;
  long long base = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * W;
  if (base + W <= n) {
    auto v = hd::load_vec16<E>(in + base);
    hd::vec<T, W> o;
#pragma unroll
    for (int k = 0; k < W; ++k) o[k] = hd::from_compute<T>(hd::to_compute(v[k]) * 2 + 1);
    hd::store_vec16(out + base, o);
  } else {
    for (int k = 0; k < W; ++k) {
      bool ok = base + k < n;
      T x = hd::load(in + base + k, ok, T());
      hd::store(out + base + k, hd::from_compute<T>(hd::to_compute(x) * 2 + 1), ok);
    }
  }
}

// One group of Group threads per row of Group elements: sum, max, min.
template <class T, int NumWarps, int Group>
__global__ void reduce_kernel(const T* in, T* sums, T* maxs, T* mins, long long rows) {
  __shared__ T scratch[NumWarps];
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  T v = in[i];
  T s = hd::block_sum<NumWarps, Group>(v, scratch);
  T mx = hd::block_max<NumWarps, Group>(v, scratch);
  T mn = hd::block_min<NumWarps, Group>(v, scratch);
  if (threadIdx.x % Group == 0) {
    sums[i / Group] = s;
    maxs[i / Group] = mx;
    mins[i / Group] = mn;
  }
}

// Each block stages `tile` floats through (dynamic) shared memory with
// cp.async; elements at or past n are zero-filled (a ragged last vector
// copies only its valid bytes), and out holds the whole padded tile.
__global__ void cp_async_kernel(const float* in, float* out, long long n, int tile) {
  extern __shared__ __align__(16) float smem[];
  long long base = static_cast<long long>(blockIdx.x) * tile;
  for (int k = threadIdx.x * 4; k < tile; k += blockDim.x * 4) {
    long long valid = n - (base + k);
    int bytes = valid >= 4 ? 16 : valid > 0 ? static_cast<int>(valid) * 4 : 0;
    if (k % 8 == 0)
      hd::cp_async_zfill<16>(smem + k, in + base + k, bytes);
    else
      hd::cp_async<16>(smem + k, in + base + k, bytes == 16);
  }
  hd::cp_async_commit();
  hd::cp_async_wait<0>();
  __syncthreads();
  for (int k = threadIdx.x; k < tile; k += blockDim.x)
    out[base + k] = smem[k] + 0.5f;
}

#if __CUDA_ARCH__ >= 900
// Copies a rows x cols f32 matrix by BoxRows x BoxCols TMA boxes: load on an
// mbarrier, scale by 3 in shared memory, store with a TMA store. Edge boxes
// read zeros out of bounds and their out-of-bounds part is not written.
template <int BoxRows, int BoxCols>
__global__ void tma_copy_kernel(const __grid_constant__ hd::TensorMap in,
                                const __grid_constant__ hd::TensorMap out) {
  __shared__ alignas(128) float tile[BoxRows * BoxCols];
  __shared__ hd::uint64 bar;
  const int col = blockIdx.x * BoxCols, row = blockIdx.y * BoxRows;
  if (threadIdx.x == 0) {
    hd::prefetch_tensormap(&in);
    hd::prefetch_tensormap(&out);
    hd::mbarrier_init(&bar, 1);
    hd::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    hd::mbarrier_arrive_expect_tx(&bar, sizeof(tile));
    hd::tma_load_2d(tile, &in, &bar, col, row);
  }
  hd::mbarrier_wait(&bar, 0);
  for (int k = threadIdx.x; k < BoxRows * BoxCols; k += blockDim.x)
    tile[k] *= 3.0f;
  hd::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    hd::tma_store_2d(&out, tile, col, row);
    hd::tma_store_commit();
    hd::tma_store_wait<0>();
  }
}
#endif

__global__ void illegal_address_kernel(float* p) { p[threadIdx.x + (1ll << 40) / 4] = 1.0f; }
)";

struct Report {
  std::ostringstream text;
  int failures = 0;
  void check(bool ok, const std::string &what) {
    text << (ok ? "PASS " : "FAIL ") << what << "\n";
    std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
    std::fflush(stdout);
    failures += !ok;
  }
  void note(const std::string &line) {
    text << line << "\n";
    std::printf("%s\n", line.c_str());
  }
};

const rt::Kernel &load(const std::string &name) {
  const rt::Kernel &k = rt::loadKernel({"gpu_smoke.cu", kSource, name, {}});
  return k;
}

template <class T> Tensor randomTensor(std::vector<int64_t> sizes, helion::DType dtype, int seed) {
  Tensor t = helion::empty(sizes, dtype, Device::cpu());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-4, 4);
  T *p = t.data_ptr<T>();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = static_cast<T>(dist(rng));
  return t;
}

/// Output buffers start as NaN bytes (0xff), so unwritten elements fail.
Tensor poisoned(std::vector<int64_t> sizes, helion::DType dtype) {
  Tensor t = helion::empty(sizes, dtype, Device::cuda());
  rt::cudaMemset(t.data_ptr(), 0, 0xff, static_cast<std::size_t>(t.numel() * t.element_size()));
  return t;
}

unsigned blocksFor(long long work, unsigned per) {
  return static_cast<unsigned>((work + per - 1) / per);
}

template <class T>
void vectorCopy(Report &r, helion::DType dtype, const char *typeName, const char *evict,
                long long n) {
  Tensor in = randomTensor<T>({n}, dtype, 1);
  Tensor dIn = in.to(Device::cuda());
  Tensor dOut = poisoned({n}, dtype);
  std::string name =
      std::string("vector_copy_kernel<") + typeName + ", helion::dev::Evict::" + evict + ">";
  const rt::Kernel &k = load(name);
  void *dInPtr = dIn.data_ptr();
  void *dOutPtr = dOut.data_ptr();
  void *args[] = {&dInPtr, &dOutPtr, &n};
  const long long width = 16 / sizeof(T);
  rt::launch(k, {blocksFor((n + width - 1) / width, 128)}, {128}, 0, args);
  rt::synchronize();
  Tensor out = dOut.to(Device::cpu());
  long long bad = 0;
  for (long long i = 0; i < n; ++i) {
    double want =
        static_cast<double>(static_cast<T>(static_cast<double>(in.data_ptr<T>()[i]) * 2 + 1));
    double got = static_cast<double>(out.data_ptr<T>()[i]);
    bad += !(std::fabs(got - want) <= 1e-2 * std::fabs(want) + 1e-6);
  }
  r.check(bad == 0, name + " n=" + std::to_string(n) + " (" + std::to_string(bad) + " wrong)");
}

template <class T, int NumWarps, int Group>
void reduce(Report &r, helion::DType dtype, const char *typeName) {
  const long long rows = 1000;
  const long long n = rows * Group;
  Tensor in = randomTensor<T>({n}, dtype, 2);
  Tensor dIn = in.to(Device::cuda());
  Tensor dSum = poisoned({rows}, dtype), dMax = poisoned({rows}, dtype),
         dMin = poisoned({rows}, dtype);
  std::string name = std::string("reduce_kernel<") + typeName + ", " + std::to_string(NumWarps) +
                     ", " + std::to_string(Group) + ">";
  const rt::Kernel &k = load(name);
  void *p[] = {dIn.data_ptr(), dSum.data_ptr(), dMax.data_ptr(), dMin.data_ptr()};
  long long rowsArg = rows;
  void *args[] = {&p[0], &p[1], &p[2], &p[3], &rowsArg};
  rt::launch(k, {static_cast<unsigned>(n / (NumWarps * 32))}, {NumWarps * 32}, 0, args);
  rt::synchronize();
  Tensor s = dSum.cpu(), mx = dMax.cpu(), mn = dMin.cpu();
  long long bad = 0;
  for (long long row = 0; row < rows; ++row) {
    double sum = 0, hi = -INFINITY, lo = INFINITY;
    for (int k = 0; k < Group; ++k) {
      double v = in.data_ptr<T>()[row * Group + k];
      sum += v;
      hi = std::max(hi, v);
      lo = std::min(lo, v);
    }
    bad += std::fabs(s.data_ptr<T>()[row] - sum) > 1e-4 * Group * 4;
    bad += mx.data_ptr<T>()[row] != hi;
    bad += mn.data_ptr<T>()[row] != lo;
  }
  r.check(bad == 0,
          name + " over " + std::to_string(rows) + " rows (" + std::to_string(bad) + " wrong)");
}

void cpAsync(Report &r) {
  const long long n = 100002; // the last tile is zero-filled from a ragged vector (k % 8 == 0)
  const int tile = 16384;     // 64 KB of dynamic shared memory: above the 48 KB default
  const long long blocks = (n + tile - 1) / tile;
  Tensor in = randomTensor<float>({n + 64}, hl::f32, 3); // readable slack past n
  Tensor dIn = in.to(Device::cuda());
  Tensor dOut = poisoned({blocks * tile}, hl::f32);
  const rt::Kernel &k = load("cp_async_kernel");
  void *pIn = dIn.data_ptr();
  void *pOut = dOut.data_ptr();
  long long nArg = n;
  int tileArg = tile;
  void *args[] = {&pIn, &pOut, &nArg, &tileArg};
  rt::launch(k, {static_cast<unsigned>(blocks)}, {256}, tile * sizeof(float), args);
  rt::synchronize();
  Tensor out = dOut.cpu();
  long long bad = 0;
  for (long long i = 0; i < blocks * tile; ++i) {
    float want = i < n ? in.data_ptr<float>()[i] + 0.5f : 0.5f;
    bad += out.data_ptr<float>()[i] != want;
  }
  r.check(bad == 0, "cp_async_kernel: 16-byte cp.async with zero fill, 64 KB dynamic shared, n=" +
                        std::to_string(n) + " (" + std::to_string(bad) + " wrong)");
}

void tmaCopy(Report &r) {
  const int64_t rows = 300, cols = 200; // edges cut boxes of 32 x 64
  Tensor in = randomTensor<float>({rows, cols}, hl::f32, 4);
  Tensor dIn = in.to(Device::cuda());
  Tensor dOut = poisoned({rows, cols}, hl::f32);
  CUtensorMap inMap = rt::makeTensorMap(dIn, {32, 64});
  CUtensorMap outMap = rt::makeTensorMap(dOut, {32, 64});
  const rt::Kernel &k = load("tma_copy_kernel<32, 64>");
  void *args[] = {&inMap, &outMap};
  rt::launch(k, {blocksFor(cols, 64), blocksFor(rows, 32)}, {128}, 0, args);
  rt::synchronize();
  Tensor out = dOut.cpu();
  long long bad = 0;
  for (int64_t i = 0; i < rows * cols; ++i)
    bad += out.data_ptr<float>()[i] != in.data_ptr<float>()[i] * 3.0f;
  r.check(bad == 0, "tma_copy_kernel<32, 64>: TMA 2-D load on an mbarrier + TMA store, 300x200 (" +
                        std::to_string(bad) + " wrong)");
}

void illegalAddress(Report &r) {
  Tensor dOut = helion::empty({32}, hl::f32, Device::cuda());
  const rt::Kernel &k = load("illegal_address_kernel");
  void *p = dOut.data_ptr();
  void *args[] = {&p};
  std::string message;
  try {
    rt::launch(k, {1}, {32}, 0, args);
    rt::synchronize();
  } catch (const rt::CudaError &e) {
    message = e.what();
  }
  r.note("illegal address error: " + message);
  r.check(message.find("illegal_address_kernel") != std::string::npos &&
              message.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos,
          "an illegal address is reported with the kernel's name and CUDA_ERROR_ILLEGAL_ADDRESS");
}

void run(Report &r, const std::string &what, const std::function<void()> &body) {
  try {
    body();
  } catch (const std::exception &e) {
    r.check(false, what + ": " + e.what());
  }
}

} // namespace

/// Every kernel main() launches, as name expressions.
std::vector<std::string> kernelNames(bool hopper) {
  std::vector<std::string> names = {
      "vector_copy_kernel<float, helion::dev::Evict::normal>",
      "vector_copy_kernel<float, helion::dev::Evict::first>",
      "vector_copy_kernel<helion::dev::f16, helion::dev::Evict::last>",
      "vector_copy_kernel<helion::dev::bf16, helion::dev::Evict::normal>",
      "vector_copy_kernel<double, helion::dev::Evict::first>",
      "reduce_kernel<float, 8, 256>",
      "reduce_kernel<float, 8, 64>",
      "reduce_kernel<float, 4, 16>",
      "reduce_kernel<double, 4, 128>",
      "cp_async_kernel",
      "illegal_address_kernel",
  };
  if (hopper)
    names.push_back("tma_copy_kernel<32, 64>");
  return names;
}

int compileOnly() {
  for (const char *arch : {"sm_80", "sm_90a"}) {
    try {
      rt::CompiledProgram p =
          rt::compile({kSource, "gpu_smoke.cu", kernelNames(arch[3] == '9'), arch, {}});
      std::printf("compiled gpu_smoke.cu for %s: %zu kernels, %zu-byte cubin, %.0f ms%s\n", arch,
                  p.loweredNames.size(), p.cubin.size(), p.seconds * 1e3,
                  p.cacheHit ? " (cached)" : "");
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "--compile-only")
    return compileOnly();
  Report r;
  try {
    const rt::DeviceInfo &info = rt::deviceInfo(0);
    r.note("device: " + info.name + ", cc " + std::to_string(info.major) + "." +
           std::to_string(info.minor) + ", " + std::to_string(info.smCount) + " SMs, " +
           std::to_string(info.maxSharedPerBlockOptin) + " B shared/block (opt-in), " +
           std::to_string(info.l2Bytes) + " B L2, arch " + rt::archFor(0));
    r.note("NVRTC " + rt::nvrtcVersion() + ", cache " +
           (rt::cacheEnabled() ? rt::cacheDirectory().string() : std::string("off")));
    const rt::Kernel &first = load("vector_copy_kernel<float, helion::dev::Evict::normal>");
    r.note("first load: compile " + std::to_string(first.compileSeconds * 1e3) + " ms, cache " +
           (first.cacheHit ? "hit" : "miss") + ", " + std::to_string(first.numRegisters()) +
           " registers");
  } catch (const std::exception &e) {
    r.check(false, std::string("setup: ") + e.what());
  }
  if (r.failures == 0) {
    const bool hopper = rt::deviceInfo(0).major >= 9;
    run(r, "vector copy f32", [&] { vectorCopy<float>(r, hl::f32, "float", "normal", 1 << 20); });
    run(r, "vector copy f32 tail",
        [&] { vectorCopy<float>(r, hl::f32, "float", "first", 1000003); });
    run(r, "vector copy f16",
        [&] { vectorCopy<helion::Half>(r, hl::f16, "helion::dev::f16", "last", 1000005); });
    run(r, "vector copy bf16",
        [&] { vectorCopy<helion::BFloat16>(r, hl::bf16, "helion::dev::bf16", "normal", 65537); });
    run(r, "vector copy f64", [&] { vectorCopy<double>(r, hl::f64, "double", "first", 4099); });
    run(r, "block reduce 256/256", [&] { reduce<float, 8, 256>(r, hl::f32, "float"); });
    run(r, "block reduce 256/64", [&] { reduce<float, 8, 64>(r, hl::f32, "float"); });
    run(r, "warp reduce 128/16", [&] { reduce<float, 4, 16>(r, hl::f32, "float"); });
    run(r, "block reduce f64", [&] { reduce<double, 4, 128>(r, hl::f64, "double"); });
    run(r, "cp.async", [&] { cpAsync(r); });
    if (hopper)
      run(r, "TMA", [&] { tmaCopy(r); });
    else
      r.note("SKIP TMA: needs compute capability 9.0");
    // Last: an illegal address poisons the context for the rest of the process.
    run(r, "illegal address", [&] { illegalAddress(r); });
  }
  r.note(r.failures == 0 ? "gpu_smoke: all checks passed"
                         : "gpu_smoke: " + std::to_string(r.failures) + " check(s) FAILED");
  if (argc > 1)
    std::ofstream(argv[1]) << r.text.str();
  return r.failures == 0 ? 0 : 1;
}
