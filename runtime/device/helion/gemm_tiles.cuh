// helion/gemm_tiles.cuh: the tile scheduler shared by gemm_sm90.cuh and
// gemm_sm80.cuh (and any kernel that walks output tiles in L2-friendly order).
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// Maps a linear tile index to (tile row, tile column) in Triton's grouped
/// order: `groupM` rows of tiles are swept column by column, so that tiles
/// running together share rows of A and columns of B in L2. Example: 32 x 16
/// tiles, groupM 8: t = 0..7 are rows 0..7 of column 0, t = 8 is row 0 of
/// column 1, ..., t = 128 is row 8 of column 0.
struct GemmTiles {
  int tilesM, tilesN, groupM;

  __device__ __forceinline__ int count() const { return tilesM * tilesN; }
  __device__ __forceinline__ void coords(int t, int& tm, int& tn) const {
    const int perGroup = groupM * tilesN;
    const int group = t / perGroup;
    const int firstM = group * groupM;
    const int rows = tilesM - firstM < groupM ? tilesM - firstM : groupM;
    const int local = t - group * perGroup;
    tm = firstM + local % rows;
    tn = local / rows;
  }
  /// Batched GEMMs: tiles of batch 0 first, then batch 1, ... (each batch in
  /// the grouped order above). Example: 4 x 4 tiles, t = 37 is tile 5 of batch 2.
  __device__ __forceinline__ void coords(int t, int& tb, int& tm, int& tn) const {
    tb = t / count();
    coords(t - tb * count(), tm, tn);
  }
};

/// Group g's rows in a grouped GEMM (rows offsets[g] .. offsets[g + 1] of M): start
/// clamped to [0, M], end to [start, M], whatever the offsets hold.
__device__ __forceinline__ int64 clamp_row(int64 v, int64 lo, int M) {
  return v < lo ? lo : v > M ? (lo > M ? lo : M) : v;
}
template <class TOff>
__device__ __forceinline__ void group_bounds(const TOff* offsets, int g, int M, int64& start,
                                             int64& end) {
  start = clamp_row(static_cast<int64>(offsets[g]), 0, M);
  end = clamp_row(static_cast<int64>(offsets[g + 1]), start, M);
}

/// v, the same in every lane of the (whole, converged) warp, from redux.sync, whose
/// result ptxas holds in a uniform register (GemmGroupedSm90's consumers pass their index
/// through it, the row-fitting kernel its stage's addresses; see there).
__device__ __forceinline__ int warp_uniform(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  return v;
#endif
}

/// A grouped GEMM's offsets (their first 4 KB) on their way to L1, a line per lane of
/// warp 0, at the kernel's entry: its first reads of them come after the barriers' and
/// tensor maps' set-up, which this round trip to DRAM then overlaps.
template <class TOff>
__device__ __forceinline__ void prefetch_offsets(const TOff* offsets, int groups) {
#if defined(__CUDA_ARCH__)
  if (const int64 at = 128 * static_cast<int64>(threadIdx.x);
      threadIdx.x < 32 && at < (groups + 1) * static_cast<int64>(sizeof(TOff)))
    asm volatile("prefetch.global.L1 [%0];" ::"l"(reinterpret_cast<const char*>(offsets) + at));
#endif
}

/// An A prologue (a computed first operand, `(x * 0.5).to(x.dtype()) @ w`): an
/// epilogue functor with `static constexpr bool kPrologueA = true` and
/// `float prologue_a(int64 row, int64 k, float v) const` has the GEMMs replace each
/// element v of A's k-block at row `row` (of A, may be >= M) and column k by
/// prologue_a(row, k, v), rounded to A's type, before the tensor cores read it;
/// elements past K become 0 (not prologue_a(row, k, 0): the product must not see
/// them), and their prologue_a gets k = K - 1 (a vector along K is read at k < K only).
/// 16-bit and f32 A only.
template <class E, class = void> struct prologue_a_of {
  static constexpr bool value = false;
};
template <class E> struct prologue_a_of<E, decltype(void(E::kPrologueA))> {
  static constexpr bool value = E::kPrologueA;
};
template <class E> inline constexpr bool has_prologue_a = prologue_a_of<E>::value;

/// A product scaled per K block (`acc = acc + hl::dot(a, b) * S`, S a row factor times a
/// column factor per K block, as block-scaled fp8 GEMMs do): an epilogue functor with
/// `static constexpr bool kKScale = true`, `int kKScaleBlock` (the scales' block along K,
/// a multiple of one 32-byte k-step of the operand type), `int kKScaleColBlock` (the
/// columns over which kscale_col is one value: the source's column tile when it reads tn
/// by its id only, else 1) and `float kscale_row(int64 row, int64 kb)`,
/// `float kscale_col(int64 col, int64 kb)` has the GEMMs run each block of K into a part
/// accumulator of its own (zeroed) and add it to the accumulator as
/// acc += part * kscale_row(row, kb) * kscale_col(col, kb), kb the block's number
/// (below K). Rows and columns past M and N are read at M - 1 and N - 1.
template <class E, class = void> struct kscale_of {
  static constexpr bool value = false;
};
template <class E> struct kscale_of<E, decltype(void(E::kKScale))> {
  static constexpr bool value = E::kKScale;
};
template <class E> inline constexpr bool has_kscale = kscale_of<E>::value;

/// The A prologue's walk over one m16 x k16 A fragment of a warp (mma.sync m16n8k16 and
/// the register-A wgmma share it) whose first row is `row0`: register i holds row row0 +
/// lane / 4 + 8 (i % 2), k = k0 + (i / 2) 8 + 2 (lane % 4) and the next k (16-bit A),
/// rounded back to A's type; f32 A (tf32, m16 x k8): k = k0 + (i / 2) 4 + lane % 4.
/// Example (16-bit): lane 6, register 3 holds row row0 + 9, k = k0 + 12 and k0 + 13.
/// Each element v becomes f(row, k, v, i, j) (j: its half of register i); elements at
/// k >= K become 0, and f sees them at k = K - 1.
template <class TIn, class F>
__device__ __forceinline__ void prologue_walk(uint32 (&a)[4], int64 row0, int k0, int K,
                                              int lane, const F& f) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int64 row = row0 + lane / 4 + 8 * (i % 2);
    if constexpr (is_same_v<TIn, float>) {
      const int k = k0 + (i / 2) * 4 + lane % 4;
      const float x = f(row, k < K ? k : K - 1, __uint_as_float(a[i]), i, 0);
      a[i] = __float_as_uint(k < K ? x : 0.f);
    } else {
      const int k = k0 + (i / 2) * 8 + 2 * (lane % 4);
      vec<TIn, 2> v = *reinterpret_cast<const vec<TIn, 2>*>(&a[i]);
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const float x = f(row, k + j < K ? k + j : K - 1, to_compute(v[j]), i, j);
        v[j] = from_compute<TIn>(k + j < K ? x : 0.f);
      }
      a[i] = *reinterpret_cast<const uint32*>(&v);
    }
  }
}

/// The A prologue on one fragment (prologue_walk): each element v becomes
/// epi.prologue_a(row, k, v).
template <class TIn, class Epi>
__device__ __forceinline__ void prologue_fragment(const Epi& epi, uint32 (&a)[4], int64 row0,
                                                  int k0, int K, int lane) {
  prologue_walk<TIn>(a, row0, k0, K, lane, [&](int64 row, int k, float v, int, int) {
    return epi.prologue_a(row, k, v);
  });
}

/// The A prologue with a staged second tensor (`F(x[tm, tk], y[tm, tk])`: the sm90
/// GEMM loads y's k-block beside A's and reads its fragment `y` as it reads A's): each
/// element v becomes epi.prologue_ay(row, k, v, y's element there) (16-bit A only).
template <class TIn, class Epi>
__device__ __forceinline__ void prologue_fragment_staged(const Epi& epi, uint32 (&a)[4],
                                                         const uint32 (&y)[4], int64 row0, int k0,
                                                         int K, int lane) {
  prologue_walk<TIn>(a, row0, k0, K, lane, [&](int64 row, int k, float v, int i, int j) {
    const vec<TIn, 2> w = *reinterpret_cast<const vec<TIn, 2>*>(&y[i]);
    return epi.prologue_ay(row, k, v, to_compute(w[j]));
  });
}

/// The epilogue functor of one batch of a batched GEMM: the GEMMs call
/// epi(row, col, v0, v1) and epi.transform(row, col, v) per tile; a batched
/// kernel's functor takes the batch first: epi(batch, row, col, ...).
template <class Epi> struct BatchEpilogue {
  const Epi& epi;
  int64 batch;
  __device__ __forceinline__ void operator()(int64 row, int64 col, float v0, float v1) const {
    epi(batch, row, col, v0, v1);
  }
  __device__ __forceinline__ float transform(int64 row, int64 col, float v) const {
    return epi.transform(batch, row, col, v);
  }
  static constexpr bool kPrologueA = has_prologue_a<Epi>;
  __device__ __forceinline__ float prologue_a(int64 row, int64 k, float v) const {
    if constexpr (has_prologue_a<Epi>)
      return epi.prologue_a(row, k, v);
    else
      return v;
  }
};

} // namespace helion::dev
