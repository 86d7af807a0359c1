// helion/generic_scan.cuh: the scan of one layout axis over its threads, for the generic
// emitter's kernels with a scan (hl::cumsum, hl::cumprod), which include it after
// helion/generic.cuh; the other kernels do not, so that their NVRTC time stays as it was.
#pragma once
#include "helion/generic.cuh"

using OpProd = hd::Prod;
/// The exclusive scan of v over the T threads th = 0..T-1 of one layout axis (as
/// axis_reduce: stride ST), in th order, and their total. Inside a warp a shuffle-up
/// scan (Hillis-Steele over lanes ST apart); across warps each warp group's total goes
/// through shared memory (smem_raw[red_phase++ & 1], one barrier, as axis_reduce).
/// T = 8, ST = 1, v = 1 everywhere: thread 5 gets 5, total 8.
template <int T, int ST, class Op, class C>
__device__ __forceinline__ C axis_scan_excl(C v, Op op, C* smem, C& total) {
  if constexpr (T == 1) {
    total = v;
    return Op::template identity<C>();
  } else {
    constexpr int kLanes = ST >= 32 ? 1 : (T * ST <= 32 ? T : 32 / ST);
    const int th = (threadIdx.x / ST) % T;
    const int tl = th % kLanes;
    const int lane = threadIdx.x % 32;
    C inc = v;
#pragma unroll
    for (int o = 1; o < kLanes; o <<= 1) {
      const C u = __shfl_up_sync(0xffffffffu, inc, o * ST);
      if (tl >= o) inc = op(u, inc);
    }
    const C up = __shfl_up_sync(0xffffffffu, inc, kLanes > 1 ? ST : 0);
    const C excl = tl == 0 ? Op::template identity<C>() : up;
    const C group = __shfl_sync(0xffffffffu, inc, lane + (kLanes - 1 - tl) * ST);
    if constexpr (kLanes == T) {
      total = group;
      return excl;
    } else {
      smem[threadIdx.x] = group;
      __syncthreads();
      const int base = threadIdx.x - th * ST;
      C before = Op::template identity<C>(), all = Op::template identity<C>();
#pragma unroll
      for (int j = 0; j < T / kLanes; ++j) {
        const C g = smem[base + j * kLanes * ST];
        if (j < th / kLanes) before = op(before, g);
        all = op(all, g);
      }
      total = all;
      return op(before, excl);
    }
  }
}
