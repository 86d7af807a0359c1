// A shared library around hd::GemmGroupedRowsSm90 (runtime/device/helion/
// gemm_grouped_rows.cuh) for scripts/grouped_rows_check.py (ctypes):
//   int grouped_rows(const void* a, const void* b, const void* offsets, int offsetsI64,
//                    void* c, int M, int N, int K, int groups, int f16, void* stream)
// a [M, K], b [groups, K, N], c [M, N], all row-major and contiguous, bf16 (f16 when
// f16 != 0); offsets int32 (int64 when offsetsI64 != 0). Returns 0, or a CUDA error.
// Built by scripts/grouped_rows_check.sh with nvcc (-shared, -lcuda for the maps).
#include "helion/gemm_grouped_rows.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

namespace hd = helion::dev;

/// C's maps: boxes of 64 and of 16 rows.
struct CMaps {
  hd::TensorMap m[2];
};

#ifndef STAGES
#define STAGES 4
#endif

template <class T, class TOff>
__global__ void __launch_bounds__(384, 1)
    grouped_rows_kernel(const __grid_constant__ hd::TensorMap mapA,
                        const __grid_constant__ hd::TensorMap mapA16,
                        const __grid_constant__ hd::TensorMap mapB,
                        const __grid_constant__ CMaps mapsC, T* c, long long ldc, int M,
                        int N, int K, const TOff* offsets, int groups) {
  extern __shared__ __align__(1024) unsigned char smem[];
  hd::GemmGroupedRowsSm90<T, STAGES>::run(&mapA, &mapA16, &mapB, mapsC.m, c, ldc, M, N, K,
                                          offsets, groups, smem);
}

static int encode(hd::TensorMap* out, CUtensorMapDataType type, int rank, const void* p,
                  const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box) {
  CUtensorMap map;
  cuuint32_t estr[3] = {1, 1, 1};
  CUresult r = cuTensorMapEncodeTiled(&map, type, rank, const_cast<void*>(p), dims, strides, box,
                                      estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  static_assert(sizeof(hd::TensorMap) == sizeof(CUtensorMap), "TensorMap is a CUtensorMap");
  std::memcpy(out, &map, sizeof(map));
  return r == CUDA_SUCCESS ? 0 : 1000 + static_cast<int>(r);
}

template <class T, class TOff>
static int launch(const void* a, const void* b, const void* offsets, void* c, int M, int N, int K,
                  int groups, cudaStream_t stream) {
  using G = hd::GemmGroupedRowsSm90<T, STAGES>;
  const CUtensorMapDataType type = sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                  : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  hd::TensorMap mapA, mapA16, mapB;
  CMaps mapsC;
  const cuuint64_t dimsA[2] = {(cuuint64_t)K, (cuuint64_t)M};
  const cuuint64_t stridesA[1] = {(cuuint64_t)K * 2};
  const cuuint32_t boxA[2] = {64, 64}, boxA16[2] = {64, 16};
  const cuuint64_t dimsB[3] = {(cuuint64_t)N, (cuuint64_t)K, (cuuint64_t)groups};
  const cuuint64_t stridesB[2] = {(cuuint64_t)N * 2, (cuuint64_t)N * K * 2};
  const cuuint32_t boxB[3] = {64, 64, 1};
  const cuuint64_t dimsC[2] = {(cuuint64_t)N, (cuuint64_t)M};
  const cuuint64_t stridesC[1] = {(cuuint64_t)N * 2};
  const cuuint32_t boxC[2] = {64, 64}, boxC16[2] = {64, 16};
  if (int e = encode(&mapA, type, 2, a, dimsA, stridesA, boxA))
    return e;
  if (int e = encode(&mapA16, type, 2, a, dimsA, stridesA, boxA16))
    return e;
  if (int e = encode(&mapB, type, 3, b, dimsB, stridesB, boxB))
    return e;
  if (int e = encode(&mapsC.m[0], type, 2, c, dimsC, stridesC, boxC))
    return e;
  if (int e = encode(&mapsC.m[1], type, 2, c, dimsC, stridesC, boxC16))
    return e;
  static bool configured = false;
  if (!configured) {
    if (cudaError_t e = cudaFuncSetAttribute(grouped_rows_kernel<T, TOff>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             G::kSmemBytes))
      return static_cast<int>(e);
    configured = true;
  }
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  grouped_rows_kernel<T, TOff><<<sms, G::kThreads, G::kSmemBytes, stream>>>(
      mapA, mapA16, mapB, mapsC, static_cast<T*>(c), N, M, N, K,
      static_cast<const TOff*>(offsets), groups);
  return static_cast<int>(cudaGetLastError());
}

extern "C" int grouped_rows(const void* a, const void* b, const void* offsets, int offsetsI64,
                            void* c, int M, int N, int K, int groups, int f16, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (f16)
    return offsetsI64 ? launch<hd::f16, long long>(a, b, offsets, c, M, N, K, groups, s)
                      : launch<hd::f16, int>(a, b, offsets, c, M, N, K, groups, s);
  return offsetsI64 ? launch<hd::bf16, long long>(a, b, offsets, c, M, N, K, groups, s)
                    : launch<hd::bf16, int>(a, b, offsets, c, M, N, K, groups, s);
}
