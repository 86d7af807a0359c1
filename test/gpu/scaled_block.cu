// A shared library around hd::Gemm's K-scale mainloop (runtime/device/helion/
// gemm_sm90_mainloops.cuh) with per-block fp8 scales, for scripts/scaled_block_check.py
// (ctypes): the product examples/scaled_mm_block.cpp compiles to, built with nvcc so
// that tile shapes, consumers and clusters the compiler does not pick can be timed
// next to it.
//   int scaled_block(const void* x, const void* w, const float* sx, const float* sw,
//                    void* out, int M, int N, int K, void* stream)
// x [M, K] and w [N, K] f8e4m3, sx [M, cdiv(K, 128)], sw [cdiv(N, 128), cdiv(K, 128)] f32,
// out [M, N] bf16, all row-major and contiguous (K a multiple of 16). Returns 0, or a
// CUDA error. The variant is fixed at build time: TILE_M (128), TILE_N (128), CONSUMERS (2),
// STAGES (4), CLUSTER (1), GROUPM (8);
// NOSCALE=1 runs the plain mainloop instead (no scales: for timing only, fails the check).
// AUTO=1 builds 2 consumers of 128 rows and 3 of 192 and picks one per call by a wave
// model (threeConsumers), a launcher the compiler does not have yet.
#include "helion/gemm_sm90.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

namespace hd = helion::dev;

#ifndef TILE_M
#define TILE_M 128
#endif
#ifndef TILE_N
#define TILE_N 128
#endif
#ifndef CONSUMERS
#define CONSUMERS 2
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef NOSCALE
#define NOSCALE 0
#endif
#ifndef AUTO
#define AUTO 0
#endif
#ifndef GROUPM
#define GROUPM 8
#endif

using G = hd::Gemm<hd::f8e4m3, hd::bf16, TILE_M, TILE_N, 128, STAGES, CONSUMERS, true, true,
                   hd::EpilogueForm::tma_store, CLUSTER>;

/// What helionc generates for examples/scaled_mm_block.cpp, with its strides fixed.
struct Epi {
  const float* sx;
  const float* sw;
  long long kbs; // cdiv(K, 128): the scales' row length
  static constexpr bool kKScale = !NOSCALE; // NOSCALE: the plain mainloop (wrong result)
  static constexpr int kKScaleBlock = 128;
  static constexpr int kKScaleColBlock = 128;
  __device__ __forceinline__ float kscale_row(hd::int64 row, hd::int64 kb) const {
    return sx[row * kbs + kb];
  }
  __device__ __forceinline__ float kscale_col(hd::int64 col, hd::int64 kb) const {
    return sw[(col / 128) * kbs + kb];
  }
  __device__ __forceinline__ float transform(hd::int64, hd::int64, float v) const { return v; }
};

static int numSms() {
  static int sms = 0;
  if (sms == 0) {
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  }
  return sms;
}

static int encode(hd::TensorMap* out, const void* p, int elemBytes, long long rows,
                  long long cols, int boxRows, int boxCols) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)(cols * elemBytes)};
  const cuuint32_t box[2] = {(cuuint32_t)boxCols, (cuuint32_t)boxRows};
  const cuuint32_t estr[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(
      &map, elemBytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_UINT16, 2,
      const_cast<void*>(p), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  static_assert(sizeof(hd::TensorMap) == sizeof(CUtensorMap), "TensorMap is a CUtensorMap");
  std::memcpy(out, &map, sizeof(map));
  return r == CUDA_SUCCESS ? 0 : 1000 + static_cast<int>(r);
}

/// G's launch on `grid` CTAs with its cluster dimension (held in `attr`).
template <class G>
static cudaLaunchConfig_t launchConfig(unsigned grid, void* stream, cudaLaunchAttribute& attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(G::kThreads);
  cfg.dynamicSmemBytes = G::kSmemBytes;
  cfg.stream = static_cast<cudaStream_t>(stream);
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim = {G::kCluster, 1, 1};
  cfg.attrs = &attr;
  cfg.numAttrs = G::kCluster > 1 ? 1 : 0;
  return cfg;
}

template <class G>
static int launch(const void* x, const void* w, const float* sx, const float* sw, void* out,
                  int M, int N, int K, void* stream) {
  hd::TensorMap ma, mb, mc;
  if (int e = encode(&ma, x, 1, M, K, G::kBoxARows, G::kBoxACols))
    return e;
  if (int e = encode(&mb, w, 1, N, K, G::kBoxBRows, G::kBoxBCols))
    return e;
  if (int e = encode(&mc, out, 2, M, N, G::kBoxCRows, G::kBoxCCols))
    return e;
  auto kernel = &hd::gemm_kernel<G, Epi>;
  static int maxCtas = 0;
  if (maxCtas == 0) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             G::kSmemBytes))
      return static_cast<int>(e);
    maxCtas = numSms();
    if (G::kCluster > 1) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = launchConfig<G>(G::kCluster * 64, nullptr, attr);
      int clusters = 0;
      if (cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg))
        return static_cast<int>(e);
      maxCtas = clusters * G::kCluster;
    }
  }
  const Epi epi{sx, sw, (K + 127) / 128};
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launchConfig<G>(G::gridSize(M, N, maxCtas), stream, attr);
  return static_cast<int>(cudaLaunchKernelEx(&cfg, kernel, ma, mb, mc, M, N, K, GROUPM, epi));
}

/// AUTO: 3 consumers of 192 rows when the waves they take, each worth kAutoTile3 of a
/// 2-consumer wave of 128 rows (1.5 x the rows at 0.83 of the time per row, session 30's
/// H200 figures), come to less than 2 consumers' waves; else 2 consumers.
[[maybe_unused]] static bool threeConsumers(int M, int N) {
  constexpr double kAutoTile3 = 1.5 * 0.83;
  const long long sms = numSms(), tilesN = (N + 127) / 128;
  const long long waves2 = ((M + 127) / 128 * tilesN + sms - 1) / sms;
  const long long waves3 = ((M + 191) / 192 * tilesN + sms - 1) / sms;
  return kAutoTile3 * static_cast<double>(waves3) < static_cast<double>(waves2);
}

extern "C" int scaled_block(const void* x, const void* w, const float* sx, const float* sw,
                            void* out, int M, int N, int K, void* stream) {
#if AUTO
  using G2 = hd::Gemm<hd::f8e4m3, hd::bf16, 128, 128, 128, STAGES, 2, true, true,
                      hd::EpilogueForm::tma_store, CLUSTER>;
  using G3 = hd::Gemm<hd::f8e4m3, hd::bf16, 192, 128, 128, STAGES, 3, true, true,
                      hd::EpilogueForm::tma_store, CLUSTER>;
  return threeConsumers(M, N) ? launch<G3>(x, w, sx, sw, out, M, N, K, stream)
                              : launch<G2>(x, w, sx, sw, out, M, N, K, stream);
#else
  return launch<G>(x, w, sx, sw, out, M, N, K, stream);
#endif
}
