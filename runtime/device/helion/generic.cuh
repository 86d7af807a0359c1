// helion/generic.cuh: what the generic emitter's kernels share (lib/CodeGen: every kernel
// that is not a matmul or attention template includes it first).
//
// Layout helpers. A block's elements are spread over threads axis by axis, the
// innermost axis in vectors of V elements:
//
//   coordinate of per-thread element i on an axis with T threads, vector V:
//     ((i / V) * T + th) * V + i % V
//   e.g. S = 16, T = 2, V = 4: thread 0 holds 0-3 and 8-11, thread 1 holds 4-7, 12-15.
//
// Then vector loads with eviction hints and the reduction of one layout axis over its
// threads (axis_reduce).
// The names are global: the emitted kernels call them unqualified.
#pragma once
#include "helion/device.cuh"

namespace hd = helion::dev;
typedef hd::int64 int64;
template <int A, int B> struct hmin_ { static constexpr int value = A < B ? A : B; };
__device__ __forceinline__ constexpr int hmin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ constexpr int hmax(int a, int b) { return a > b ? a : b; }
/// The blocks per SM a one-tile row kernel asks ptxas to fit (__launch_bounds__'s
/// second argument) when each thread holds `elems` row elements: 24 warps while
/// they are at most 40 (registers capped near 80, which a layer_norm row of 10240
/// on 256 threads fits without spilling: 3 blocks of 8 warps, 2600 GB/s on the
/// H100, against 2 blocks at 110 registers and 2540), else ptxas's choice.
__host__ __device__ constexpr int row_min_blocks(int nt, int elems) {
  return elems <= 40 ? (768 + nt - 1) / nt : 1;
}
/// The vector width of an inner axis of S elements on NTA threads: the widest
/// v <= VEC such that the axis splits into T = min(NTA, S / v) threads (a power
/// of two) of whole v-vectors each (S = 10240, NTA = 512, VEC = 8: 4).
__device__ __forceinline__ constexpr int axis_vec(int vec, int s, int nta) {
  for (int v = vec; v > 1; v /= 2) {
    const int t = s / v < nta ? s / v : nta;
    if (s % v == 0 && t > 0 && (t & (t - 1)) == 0 && s % t == 0 && (s / t) % v == 0)
      return v;
  }
  return 1;
}
/// The same, for an axis whose threads the axes after it (holding `rows` elements
/// between them) share: the widest vector that leaves no thread of the `nta` idle (t
/// along this axis, nta / t on the later axes, at most `rows` of them busy), else the
/// widest as above. [1, 1024] of fp8 with f32 out and 128 threads: VEC 16 would put 64
/// threads on the row and leave 64 repeating their work; 8 keeps all 128 busy.
__device__ __forceinline__ constexpr int axis_vec(int vec, int s, int nta, long long rows) {
  for (int v = vec; v > 1; v /= 2) {
    const int t = s / v < nta ? s / v : nta;
    if (s % v == 0 && t > 0 && (t & (t - 1)) == 0 && s % t == 0 && (s / t) % v == 0 &&
        t * (nta / t < rows ? nta / t : rows) >= nta)
      return v;
  }
  return axis_vec(vec, s, nta);
}
// Checked wherever a generic kernel compiles (every cubin test): fp8 row of 1024 on 128
// threads alone 8 (16 would leave 64 threads idle), with 2 rows 16; bf16 rows of 512
// alone 4, two of them 8; a row of 8192 any.
static_assert(axis_vec(16, 1024, 128) == 16 && axis_vec(16, 1024, 128, 1) == 8 &&
              axis_vec(16, 1024, 128, 2) == 16 && axis_vec(8, 512, 128, 1) == 4 &&
              axis_vec(8, 512, 128, 2) == 8 && axis_vec(8, 8192, 256, 1) == 8);
__device__ __forceinline__ constexpr int coord(int i, int th, int T, int V) {
  return ((i / V) * T + th) * V + i % V;
}
template <class T, int N> struct alignas(sizeof(T) * N) hvec { T v[N]; };
/// A vector load with an L2 eviction priority (load_eviction_policies "first" /
/// "last"); NC: the read-only path, for tensors the kernel never writes.
template <hd::Evict E, bool NC, class T, int N>
__device__ __forceinline__ hvec<T, N> load_hint(const hvec<T, N>* p, bool pred) {
  if constexpr (sizeof(hvec<T, N>) == 16) {
    union { hvec<T, N> h; hd::uint32 r[4]; } u;
    u.r[0] = u.r[1] = u.r[2] = u.r[3] = 0;
    hd::detail::ld16<E, NC>(u.r, p, pred);
    return u.h;
  } else if constexpr (sizeof(hvec<T, N>) <= 8 && (sizeof(hvec<T, N>) & (sizeof(hvec<T, N>) - 1)) == 0) {
    union { hvec<T, N> h; hd::uint64 r; } u;
    u.r = 0;
    hd::detail::ld_word<E, NC, int(sizeof(hvec<T, N>))>(u.r, p, pred);
    return u.h;
  } else {
    return pred ? *p : hvec<T, N>{};
  }
}
/// The combining functions of axis_reduce and axis_scan_excl: the device library's,
/// which carry their identity (helion/reduce.cuh).
using OpSum = hd::Sum;
using OpMax = hd::Max;
using OpMin = hd::Min;
/// Combines the values of the T threads th, th+ST, ..., th+(T-1)*ST (one axis of
/// the layout): shuffles inside a warp, then shared memory across warps. Calls
/// alternate between two buffers (smem_raw[red_phase++ & 1]), so one barrier per
/// call suffices: a thread writes buffer b for reduction r + 2 only after the
/// barrier of reduction r + 1, which every thread reaches after reading r.
template <int T, int ST, class Op, class C>
__device__ __forceinline__ C axis_reduce(C v, Op op, C* smem) {
  if constexpr (T == 1) {
    return v;
  } else {
    constexpr int kLanes = ST >= 32 ? 1 : (T * ST <= 32 ? T : 32 / ST);
#pragma unroll
    for (int o = 1; o < kLanes; o <<= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o * ST));
    if constexpr (kLanes == T) {
      return v;
    } else {
      smem[threadIdx.x] = v;
      __syncthreads();
      const int base = threadIdx.x - ((threadIdx.x / ST) % T) * ST;
      C r = smem[base];
#pragma unroll
      for (int j = 1; j < T / kLanes; ++j) r = op(r, smem[base + j * ST * kLanes]);
      return r;
    }
  }
}
