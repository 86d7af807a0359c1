// A shared library around hd::GemmGroupedRowsSm90 (runtime/device/helion/
// gemm_grouped_rows.cuh) for scripts/grouped_rows_check.py (ctypes):
//   int grouped_rows(const void* a, const void* b, const void* offsets, int offsetsI64,
//                    void* c, int M, int N, int K, int groups, int f16, int byHeight,
//                    void* stream)
// a [M, K], b [groups, K, N], c [M, N], all row-major and contiguous, bf16 (f16 when
// f16 != 0); offsets int32 (int64 when offsetsI64 != 0). Returns 0, or a CUDA error.
// Built by scripts/grouped_rows_check.sh with nvcc (-shared, -lcuda for the maps);
// -DSTREAMK=1 gives the kernel a stream-K workspace (one per process, one stream);
// -DBALANCE=0 keeps row tiles of up to 256 rows (no cap chosen per launch);
// -DOVERHEAD=N prices caps with N rows of per-tile overhead; -DDYNAMIC=0 deals the units
// out statically (CTA c: c, c + P, ...) instead of by an atomic counter in the workspace.
// -DPROBE records, per CTA, clock64() at the kernel's probes (gemm_grouped_rows.cuh's
// HELION_ROWS_PROBE: the producer's thread 0 and the first consumer's thread 0) and
// globaltimer at entry and end; grouped_rows_probe(out) copies them out (int64 [#CTAs]
// [kProbeSlots]) and zeroes them for the next launch; dense_probe(a, b, c, M, N, K,
// stream) runs the plain matmul template (gemm_sm90.cuh's Gemm, with the same probes).
#ifdef PROBE
namespace probe {
enum : int { entry, planned, ordered, firstLoad, firstData, epilogueBegin, epilogueEnd, end,
             gaps, gapsN, epilogues, epiloguesN, ns0, ns1, kSlots = 16 };
constexpr int kCtas = 1024;
__device__ long long slots[kCtas][kSlots];
__device__ __forceinline__ bool mine(int e) {
  return e <= firstLoad ? threadIdx.x == 0 : threadIdx.x == 128;
}
__device__ __forceinline__ void mark(int e) {
  if (!mine(e) || blockIdx.x >= kCtas)
    return;
  long long* s = slots[blockIdx.x];
  if ((e == firstLoad || e == firstData) && s[e] != 0)
    return;
  s[e] = clock64();
  if (e == entry || e == end) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    s[e == entry ? ns0 : ns1] = static_cast<long long>(t);
  }
}
__device__ __forceinline__ void span(int what, int begin) {
  if (!mine(what) || blockIdx.x >= kCtas)
    return;
  long long* s = slots[blockIdx.x];
  if (s[begin] != 0) {
    s[what] += clock64() - s[begin];
    s[what + 1] += 1;
  }
}
} // namespace probe
#define HELION_ROWS_PROBE(event) probe::mark(probe::event)
#define HELION_ROWS_PROBE_SPAN(what, begin) probe::span(probe::what, probe::begin)
#endif
#include "helion/gemm_grouped_rows.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

namespace hd = helion::dev;

#ifndef STAGES
#define STAGES 4
#endif
#ifndef BOXES // hd::RowBoxes: 0 k64x16, 1 kExact, 2 kCeil64
#define BOXES 1
#endif
#ifndef STREAMK // 1: a stream-K workspace (the last wave split in k where it pays), 0: none
#define STREAMK 0
#endif
#ifndef BALANCE // 1: the row cap chosen per launch (BalanceWaves), 0: always 256
#define BALANCE 1
#endif
#ifndef OVERHEAD // the cap model's per-tile rows (GroupedRowsShape::capCost)
#define OVERHEAD hd::GroupedRowsShape::kTileOverheadRows
#endif

#ifndef DYNAMIC // 1: with a workspace, units taken from an atomic counter
#define DYNAMIC 1
#endif

template <class T>
using Gemm = hd::GemmGroupedRowsSm90<T, STAGES, static_cast<hd::RowBoxes>(BOXES), BALANCE != 0,
                                     OVERHEAD, DYNAMIC != 0>;

/// A's and C's maps (Gemm::kMapsA / kMapsC of them, the rest unused) and B's.
using Maps = hd::GroupedRowMaps;

template <class T, class TOff>
__global__ void __launch_bounds__(384, 1)
    grouped_rows_kernel(const __grid_constant__ Maps maps, T* c, long long ldc, int M, int N,
                        int K, const TOff* offsets, int groups, int byHeight,
                        unsigned char* workspace) {
  extern __shared__ __align__(1024) unsigned char smem[];
  Gemm<T>::run(maps.a, &maps.b, maps.c, c, ldc, M, N, K, offsets, groups, byHeight != 0,
               workspace, smem);
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

/// A launch's preparation: the kernel's dynamic shared memory limit raised to `smemBytes`
/// once (`configured`, the call site's own flag), and the device's SM count in `sms`.
/// Returns 0 or a CUDA error.
template <class Kernel>
static int prepare(Kernel kernel, int smemBytes, bool& configured, int& sms) {
  if (!configured) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             smemBytes))
      return static_cast<int>(e);
    configured = true;
  }
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return 0;
}

template <class T, class TOff>
static int launch(const void* a, const void* b, const void* offsets, void* c, int M, int N, int K,
                  int groups, int byHeight, cudaStream_t stream) {
  using G = Gemm<T>;
  const CUtensorMapDataType type = sizeof(T) == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                  : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  Maps maps;
  const cuuint64_t dimsA[2] = {(cuuint64_t)K, (cuuint64_t)M};
  const cuuint64_t stridesA[1] = {(cuuint64_t)K * 2};
  const cuuint64_t dimsB[3] = {(cuuint64_t)N, (cuuint64_t)K, (cuuint64_t)groups};
  const cuuint64_t stridesB[2] = {(cuuint64_t)N * 2, (cuuint64_t)N * K * 2};
  const cuuint32_t boxB[3] = {64, 64, 1};
  const cuuint64_t dimsC[2] = {(cuuint64_t)N, (cuuint64_t)M};
  const cuuint64_t stridesC[1] = {(cuuint64_t)N * 2};
  // Box rows: kExact, 16 (i + 1) for map i; else 64 and 16.
  auto rows = [](int i) { return static_cast<cuuint32_t>(G::Exact ? 16 * (i + 1) : i ? 16 : 64); };
  for (int i = 0; i < G::kMapsA; ++i) {
    const cuuint32_t box[2] = {64, rows(i)};
    if (int e = encode(&maps.a[i], type, 2, a, dimsA, stridesA, box))
      return e;
  }
  for (int i = 0; i < G::kMapsC; ++i) {
    const cuuint32_t box[2] = {64, rows(i)};
    if (int e = encode(&maps.c[i], type, 2, c, dimsC, stridesC, box))
      return e;
  }
  if (int e = encode(&maps.b, type, 3, b, dimsB, stridesB, boxB))
    return e;
  static bool configured = false;
  int sms = 0;
  if (int e = prepare(grouped_rows_kernel<T, TOff>, G::kSmemBytes, configured, sms))
    return e;
  static unsigned char* workspace = nullptr; // counters zeroed once; the kernel re-zeroes them
  if (STREAMK && !workspace) {
    const size_t bytes = hd::kStreamKCounterBytes + size_t(sms) * G::kStreamKSlotBytes;
    if (cudaError_t e = cudaMalloc(&workspace, bytes))
      return static_cast<int>(e);
    if (cudaError_t e = cudaMemset(workspace, 0, bytes))
      return static_cast<int>(e);
  }
  grouped_rows_kernel<T, TOff><<<sms, G::kThreads, G::kSmemBytes, stream>>>(
      maps, static_cast<T*>(c), N, M, N, K, static_cast<const TOff*>(offsets), groups, byHeight,
      workspace);
  return static_cast<int>(cudaGetLastError());
}

extern "C" int grouped_rows(const void* a, const void* b, const void* offsets, int offsetsI64,
                            void* c, int M, int N, int K, int groups, int f16, int byHeight,
                            void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int o = byHeight;
  if (f16)
    return offsetsI64 ? launch<hd::f16, long long>(a, b, offsets, c, M, N, K, groups, o, s)
                      : launch<hd::f16, int>(a, b, offsets, c, M, N, K, groups, o, s);
  return offsetsI64 ? launch<hd::bf16, long long>(a, b, offsets, c, M, N, K, groups, o, s)
                    : launch<hd::bf16, int>(a, b, offsets, c, M, N, K, groups, o, s);
}

#ifdef PROBE
// The plain persistent matmul template (what examples/matmul.cpp compiles to: 128 x 256
// tiles, 4 stages, 2 consumers, tma_store, groupM 8) with the same probes, on
// c [M, N] = a [M, K] @ b [K, N] (bf16), for scripts/grouped_rows_probe.py --dense.
using Dense = hd::Gemm<hd::bf16, hd::bf16, 128, 256, 64, 4, 2, false, true,
                       hd::EpilogueForm::tma_store>;

extern "C" int dense_probe(const void* a, const void* b, void* c, int M, int N, int K,
                           void* stream) {
  const CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  hd::TensorMap mapA, mapB, mapC;
  const cuuint64_t dimsA[2] = {(cuuint64_t)K, (cuuint64_t)M}, stridesA[1] = {(cuuint64_t)K * 2};
  const cuuint64_t dimsB[2] = {(cuuint64_t)N, (cuuint64_t)K}, stridesB[1] = {(cuuint64_t)N * 2};
  const cuuint64_t dimsC[2] = {(cuuint64_t)N, (cuuint64_t)M}, stridesC[1] = {(cuuint64_t)N * 2};
  const cuuint32_t boxA[2] = {64, Dense::kBoxARows}, boxB[2] = {64, 64};
  const cuuint32_t boxC[2] = {(cuuint32_t)Dense::kBoxCCols, (cuuint32_t)Dense::kBoxCRows};
  if (int e = encode(&mapA, type, 2, a, dimsA, stridesA, boxA))
    return e;
  if (int e = encode(&mapB, type, 2, b, dimsB, stridesB, boxB))
    return e;
  if (int e = encode(&mapC, type, 2, c, dimsC, stridesC, boxC))
    return e;
  auto kernel = hd::gemm_kernel<Dense, hd::IdentityTransform>;
  static bool configured = false;
  int sms = 0;
  if (int e = prepare(kernel, Dense::kSmemBytes, configured, sms))
    return e;
  kernel<<<Dense::gridSize(M, N, sms), Dense::kThreads, Dense::kSmemBytes,
           static_cast<cudaStream_t>(stream)>>>(mapA, mapB, mapC, M, N, K, 8,
                                                hd::IdentityTransform{});
  return static_cast<int>(cudaGetLastError());
}

/// Copies the probes' slots of the last launch (int64 [probe::kCtas][probe::kSlots]) to
/// `out` and zeroes them. Returns 0 or a CUDA error.
extern "C" int grouped_rows_probe(long long* out) {
  cudaError_t e = cudaMemcpyFromSymbol(out, probe::slots, sizeof(probe::slots));
  if (e == cudaSuccess) {
    static long long zero[probe::kCtas][probe::kSlots];
    e = cudaMemcpyToSymbol(probe::slots, zero, sizeof(zero));
  }
  return static_cast<int>(e);
}
#endif
