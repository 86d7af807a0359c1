// NVRTC compiles a kernel instantiating every device-library primitive, for
// sm_80 and sm_90a, and resolves each kernel's name expression.
#include "TestSupport.h"
#include "helion/runtime/Compile.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

using namespace helion::rt;

namespace {

// Each kernel exercises a group of primitives; Hopper-only ones sit behind the
// same guard emitted code uses.
const char *kPrimitives = R"(
#include "helion/device.cuh"
namespace hd = helion::dev;

template <class T>
__global__ void types_kernel(const T* in, float* out, T* back) {
  int i = threadIdx.x;
  hd::compute_t<T> c = hd::to_compute(in[i]);
  out[i] = static_cast<float>(c);
  back[i] = hd::from_compute<T>(c * 2);
}

__global__ void math_kernel(const float* x, float* y, const double* xd, double* yd) {
  int i = threadIdx.x;
  float v = x[i];
  y[i] = hd::exp(v) + hd::log(v) + hd::rsqrt(v) + hd::tanh(v) + hd::sigmoid(v) +
         hd::maximum(v, 1.0f) + hd::minimum(v, -1.0f) + hd::sqrt(v) + hd::abs(v);
  double d = xd[i];
  yd[i] = hd::exp(d) + hd::log(d) + hd::maximum(d, 0.5) + hd::sigmoid(d);
}

template <class T, hd::Evict E>
__global__ void vector_copy_kernel(const T* in, T* out, long long n) {
  constexpr int W = hd::vec16_width<T>;
  long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * W;
  bool ok = i + W <= n;
  auto v = hd::load_vec16<E>(in + i, ok);
  auto w = hd::load_vec16_nc(in + i, ok);
  for (int k = 0; k < W; ++k)
    v[k] = hd::from_compute<T>(hd::to_compute(v[k]) + hd::to_compute(w[k]));
  hd::store_vec16<E>(out + i, v, ok);
  T s = hd::load(in + i, i < n, T());
  hd::store(out + i, s, i < n);
  out[0] = hd::load_nc(in);
}

template <class T, int NumWarps, int Group>
__global__ void reduce_kernel(const T* in, T* sums, T* maxs, T* mins) {
  __shared__ T scratch[NumWarps];
  T v = in[blockIdx.x * blockDim.x + threadIdx.x];
  T s = hd::block_sum<NumWarps, Group>(v, scratch);
  T mx = hd::block_max<NumWarps, Group>(v, scratch);
  T mn = hd::block_min<NumWarps, Group>(v, scratch);
  T w = hd::warp_sum<8>(v) + hd::warp_max(v) + hd::warp_min<16>(v);
  if (threadIdx.x % Group == 0) {
    int g = (blockIdx.x * blockDim.x + threadIdx.x) / Group;
    sums[g] = s + w;
    maxs[g] = mx;
    mins[g] = mn;
  }
}

__global__ void cp_async_kernel(const float* in, float* out, int n) {
  __shared__ alignas(16) float tile[3][256];
  __shared__ hd::uint64 bar;
  int i = threadIdx.x * 4;
  if (threadIdx.x == 0) hd::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  hd::cp_async<16>(&tile[0][i % 256], in + i, i + 4 <= n);
  hd::cp_async<8>(&tile[1][i % 256], in + i, i + 2 <= n);
  hd::cp_async<4>(&tile[2][i % 256], in + i, i < n);
  hd::cp_async_zfill<16>(&tile[0][i % 256], in + i, n - i >= 4 ? 16 : 0);
  hd::cp_async_commit();
  hd::cp_async_wait<0>();
  hd::cp_async_wait_all();
  hd::mbarrier_arrive(&bar);
  hd::mbarrier_wait(&bar, 0);
  __syncthreads();
  out[threadIdx.x] = tile[0][threadIdx.x] + tile[1][threadIdx.x] + tile[2][threadIdx.x];
}

#if __CUDA_ARCH__ >= 900
__global__ void tma_kernel(const __grid_constant__ hd::TensorMap in,
                           const __grid_constant__ hd::TensorMap out, int rows, int cols) {
  __shared__ alignas(128) float tile[64 * 64];
  __shared__ hd::uint64 bar;
  if (threadIdx.x == 0) {
    hd::prefetch_tensormap(&in);
    hd::mbarrier_init(&bar, 1);
    hd::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    hd::mbarrier_arrive_expect_tx(&bar, sizeof(tile));
    hd::tma_load_2d(tile, &in, &bar, blockIdx.x * 64, blockIdx.y * 64);
  }
  hd::mbarrier_wait(&bar, 0);
  for (int k = threadIdx.x; k < 64 * 64; k += blockDim.x) tile[k] *= 2.0f;
  hd::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    hd::tma_store_2d(&out, tile, blockIdx.x * 64, blockIdx.y * 64);
    hd::tma_store_commit();
    hd::tma_store_wait<0>();
  }
}

__global__ void tma_1d_3d_kernel(const __grid_constant__ hd::TensorMap m1,
                                 const __grid_constant__ hd::TensorMap m3) {
  __shared__ alignas(128) float tile[1024];
  __shared__ hd::uint64 bar;
  if (threadIdx.x == 0) {
    hd::mbarrier_init(&bar, 1);
    hd::fence_mbarrier_init();
    hd::mbarrier_arrive_expect_tx(&bar, 2 * 512 * 4);
    hd::tma_load_1d(tile, &m1, &bar, 0);
    hd::tma_load_3d(tile + 512, &m3, &bar, 0, 0, 0);
  }
  __syncthreads();
  hd::mbarrier_wait(&bar, 0);
  if (threadIdx.x == 0) {
    hd::tma_store_1d(&m1, tile, 0);
    hd::tma_store_3d(&m3, tile + 512, 0, 0, 0);
    hd::tma_store_commit();
    hd::tma_store_wait_complete<0>();
  }
}
#endif
)";

std::vector<std::string> primitiveNames(bool hopper) {
  std::vector<std::string> names = {
      "types_kernel<helion::dev::f16>",
      "types_kernel<helion::dev::bf16>",
      "types_kernel<float>",
      "types_kernel<double>",
      "types_kernel<int>",
      "math_kernel",
      "vector_copy_kernel<float, helion::dev::Evict::normal>",
      "vector_copy_kernel<helion::dev::f16, helion::dev::Evict::first>",
      "vector_copy_kernel<helion::dev::bf16, helion::dev::Evict::last>",
      "vector_copy_kernel<double, helion::dev::Evict::normal>",
      "reduce_kernel<float, 8, 256>",
      "reduce_kernel<float, 8, 64>",
      "reduce_kernel<float, 4, 16>",
      "reduce_kernel<double, 4, 128>",
      "cp_async_kernel",
  };
  if (hopper) {
    names.push_back("tma_kernel");
    names.push_back("tma_1d_3d_kernel");
  }
  return names;
}

} // namespace

TEST_CASE("the device library compiles for sm_90a and sm_80 with every primitive", "[device]") {
  setenv("HELIONC_NO_CACHE", "1", 1);
  for (const char *arch : {"sm_90a", "sm_80"}) {
    INFO("arch " << arch);
    const bool hopper = std::string(arch) == "sm_90a";
    CompileRequest request{kPrimitives, "primitives.cu", primitiveNames(hopper), arch, {}};
    CompiledProgram program = compile(request);
    std::printf("device library primitives for %s: %.0f ms\n", arch, program.seconds * 1e3);
    CHECK_FALSE(program.cacheHit);
    CHECK(program.cubin.size() > 1000);
    CHECK(program.cubin.compare(0, 4,
                                "\x7f"
                                "ELF") == 0);
    REQUIRE(program.loweredNames.size() == request.nameExpressions.size());
    for (const std::string &name : request.nameExpressions) {
      INFO(name);
      const std::string &lowered = program.loweredNames.at(name);
      CHECK_FALSE(lowered.empty());
      // The mangled name must be in the cubin's symbol table.
      CHECK(program.cubin.find(lowered) != std::string::npos);
    }
  }
  unsetenv("HELIONC_NO_CACHE");
}

TEST_CASE("Hopper-only primitives are absent for sm_80", "[device]") {
  setenv("HELIONC_NO_CACHE", "1", 1);
  const char *source = R"(
#include "helion/device.cuh"
__global__ void k(helion::dev::uint64* bar) { helion::dev::fence_proxy_async_shared(); }
)";
  CHECK_THROWS_AS(compile({source, "hopper_only.cu", {"k"}, "sm_80", {}}), CompileError);
  CHECK_NOTHROW(compile({source, "hopper_only.cu", {"k"}, "sm_90a", {}}));
  unsetenv("HELIONC_NO_CACHE");
}

// The budget from the design: a typical small kernel that includes the whole
// device library compiles in <= 100 ms on one core. The assertion is generous
// (shared CI machines); the printed figure is the one to watch.
TEST_CASE("a typical small kernel compiles quickly", "[device][timing]") {
  setenv("HELIONC_NO_CACHE", "1", 1);
  const char *softmax = R"(
#include "helion/device.cuh"
namespace hd = helion::dev;
template <class T, int NumWarps>
__global__ void softmax_kernel(const T* __restrict__ x, T* __restrict__ out, int n) {
  __shared__ float scratch[NumWarps];
  constexpr int W = hd::vec16_width<T>;
  const T* row = x + static_cast<long long>(blockIdx.x) * n;
  int col = threadIdx.x * W;
  auto v = hd::load_vec16<hd::Evict::first>(row + col, col < n);
  float m = -__int_as_float(0x7f800000);
  for (int k = 0; k < W; ++k) m = hd::maximum(m, col + k < n ? hd::to_compute(v[k]) : m);
  m = hd::block_max<NumWarps>(m, scratch);
  float e[W], s = 0;
  for (int k = 0; k < W; ++k) { e[k] = col + k < n ? hd::exp(hd::to_compute(v[k]) - m) : 0.f; s += e[k]; }
  s = hd::block_sum<NumWarps>(s, scratch);
  hd::vec<T, W> o;
  for (int k = 0; k < W; ++k) o[k] = hd::from_compute<T>(e[k] / s);
  hd::store_vec16(out + static_cast<long long>(blockIdx.x) * n + col, o, col < n);
}
)";
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    CompiledProgram p =
        compile({softmax, "softmax.cu", {"softmax_kernel<helion::dev::f16, 8>"}, "sm_90a", {}});
    best = std::min(best, p.seconds);
  }
  std::printf("typical small kernel (softmax, whole device library, sm_90a): best of 3 %.1f ms\n",
              best * 1e3);
  CHECK(best < 1.0);
  unsetenv("HELIONC_NO_CACHE");
}
