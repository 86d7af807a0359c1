// helion/reduce.cuh: warp and block reductions.
//
// A reduction runs over a *group* of consecutive threads; a block holds
// NumWarps * 32 / Group independent groups (one per row of a tile, say).
// Example: 256 threads reducing rows of 64 elements with Group = 64 gives 4
// groups; warps 0-1 reduce row 0, warps 2-3 row 1, and so on. Every thread of
// a group gets the group's result.
#pragma once
#include "helion/math.cuh"
#include "helion/types.cuh"

namespace helion::dev {

/// The combining functions, each with its identity (the value a reduction or scan
/// over no element gives: 0, -inf, +inf, 1).
struct Sum {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
  template <class T> __device__ __forceinline__ static T identity() { return T(0); }
};
struct Max {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const {
    return maximum(a, b);
  }
  template <class T> __device__ __forceinline__ static T identity() {
    return T(-__int_as_float(0x7f800000));
  }
};
struct Min {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const {
    return minimum(a, b);
  }
  template <class T> __device__ __forceinline__ static T identity() {
    return T(__int_as_float(0x7f800000));
  }
};
struct Prod {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
  template <class T> __device__ __forceinline__ static T identity() { return T(1); }
};

/// Reduces `v` over each group of `Group` consecutive lanes (a power of two,
/// 1 to 32) by a butterfly of xor shuffles: after log2(Group) steps every lane
/// holds its group's result. The whole warp must call it.
template <int Group = 32, class Op, class T>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
  static_assert(Group >= 1 && Group <= 32 && (Group & (Group - 1)) == 0,
                "warp_reduce: the group must be a power of two of at most 32 lanes");
#pragma unroll
  for (int offset = Group / 2; offset > 0; offset /= 2)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

template <int Group = 32, class T> __device__ __forceinline__ T warp_sum(T v) {
  return warp_reduce<Group>(v, Sum{});
}
template <int Group = 32, class T> __device__ __forceinline__ T warp_max(T v) {
  return warp_reduce<Group>(v, Max{});
}
template <int Group = 32, class T> __device__ __forceinline__ T warp_min(T v) {
  return warp_reduce<Group>(v, Min{});
}

/// Reduces `v` over each group of `Group` consecutive threads of a block of
/// NumWarps warps (Group: a power of two, 1 to NumWarps * 32). Groups wider
/// than a warp combine their warps' partial results through `scratch`, a
/// shared buffer of at least NumWarps elements; the call ends with a barrier so
/// that the buffer may be reused at once. Every thread of the block must call it.
template <int NumWarps, int Group, class Op, class T>
__device__ __forceinline__ T block_reduce(T v, T* scratch, Op op) {
  static_assert(Group >= 1 && Group <= NumWarps * 32 && (Group & (Group - 1)) == 0,
                "block_reduce: the group must be a power of two of at most the block's threads");
  if constexpr (Group <= 32) {
    return warp_reduce<Group>(v, op);
  } else {
    constexpr int WarpsPerGroup = Group / 32;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    v = warp_reduce<32>(v, op);
    if (lane == 0)
      scratch[warp] = v;
    __syncthreads();
    const int first = warp - warp % WarpsPerGroup;
    T r = scratch[first];
#pragma unroll
    for (int w = 1; w < WarpsPerGroup; ++w)
      r = op(r, scratch[first + w]);
    __syncthreads();
    return r;
  }
}

template <int NumWarps, int Group = NumWarps * 32, class T>
__device__ __forceinline__ T block_sum(T v, T* scratch) {
  return block_reduce<NumWarps, Group>(v, scratch, Sum{});
}
template <int NumWarps, int Group = NumWarps * 32, class T>
__device__ __forceinline__ T block_max(T v, T* scratch) {
  return block_reduce<NumWarps, Group>(v, scratch, Max{});
}
template <int NumWarps, int Group = NumWarps * 32, class T>
__device__ __forceinline__ T block_min(T v, T* scratch) {
  return block_reduce<NumWarps, Group>(v, scratch, Min{});
}

}  // namespace helion::dev
