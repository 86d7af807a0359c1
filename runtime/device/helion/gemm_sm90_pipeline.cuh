// helion/gemm_sm90_pipeline.cuh: the sm_90a primitives of gemm_sm90.cuh's
// mainloop (part of gemm_sm90.cuh, which includes it; attention kernels may use
// them directly): warpgroup wgmma (fence, commit, wait, the m64nNk16 instruction
// for every N the GEMM uses, the 128-byte-swizzle shared-memory descriptor),
// setmaxnreg, and the cluster forms of the mbarrier arrive and the TMA load that
// async.cuh does not have. The plain mbarrier and TMA operations are in async.cuh.
#pragma once
#include "helion/async.cuh"
#include "helion/types.cuh"

namespace helion::dev {

/// Where register `reg` (0 .. N/2-1) of thread `thread` (0..127 in its
/// warpgroup) sits in the 64 x N f32 result of one wgmma m64nNk16:
///   row = 16 * warp + lane / 4 + 8 * ((reg / 2) % 2)
///   col = 8 * (reg / 4) + 2 * (lane % 4) + reg % 2
/// i.e. each warp owns 16 rows, and registers come in groups of four covering
/// 8 columns: {0, 1} on row lane/4, {2, 3} on row lane/4 + 8. Example: thread
/// 37 (warp 1, lane 5), register 6: row 16 + 1 + 8 = 25, col 8 + 2 + 0 = 10.
struct WgmmaAcc {
  __host__ __device__ static constexpr int row(int thread, int reg) {
    return 16 * (thread / 32) + (thread % 32) / 4 + 8 * ((reg / 2) % 2);
  }
  __host__ __device__ static constexpr int col(int thread, int reg) {
    return 8 * (reg / 4) + 2 * (thread % 4) + reg % 2;
  }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {

// ---------------------------------------------------------------------------
// Warpgroup primitives (sm_90a)

/// Orders register and shared-memory writes before the wgmma that read them.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

/// Closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/// Waits until at most `Pending` committed wgmma groups are in flight.
template <int Pending> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

/// The start of a GEMM kernel's ring of `Stages` stages, every thread of the CTA:
/// thread 0 initializes full[s] for one arrival (the producer's expect_tx) and
/// empty[s] for `emptyArrivals` (each consumer warp that frees it), thread 32 runs
/// `prefetch` (the kernel's tensor maps). The caller then syncs the CTA (or cluster).
template <int Stages, class Prefetch>
__device__ __forceinline__ void init_ring(uint64* full, uint64* empty, uint32 emptyArrivals,
                                          const Prefetch& prefetch) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], emptyArrivals);
    }
    fence_mbarrier_init();
  } else if (threadIdx.x == 32) {
    prefetch();
  }
}

/// Keeps the compiler from moving accesses of `r` across a wgmma fence/wait.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

template <int Regs> __device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs> __device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}

/// bar.sync on named barrier `id` (1..15; 0 is __syncthreads) for `threads`.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// bar.red.or on named barrier `id` for `threads`: waits as named_barrier_sync and
/// says whether any of the threads passed true.
__device__ __forceinline__ bool named_barrier_or(int id, int threads, bool v) {
  uint32 r;
  asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n"
               " bar.red.or.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}"
               : "=r"(r)
               : "r"(static_cast<uint32>(v)), "r"(id), "r"(threads)
               : "memory");
  return r != 0;
}

/// This CTA's rank in its cluster.
__device__ __forceinline__ uint32 cluster_ctarank() {
  uint32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// All threads of all CTAs of the cluster (release/acquire: shared-memory
/// writes and mbarrier inits before it are visible to the cluster after it).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n barrier.cluster.wait.acquire;" ::: "memory");
}

/// Arrives once on the mbarrier at the same shared offset as `bar` in the CTA
/// of cluster rank `rank` (that CTA itself included). Default (CTA-scope)
/// semantics on purpose: `.release.cluster` costs a MEMBAR.ALL.GPU per arrive
/// (seen in SASS; the mainloop ran at 40 %), and the arrival only says that
/// this warpgroup's wgmma reads of the stage are done (wgmma.wait_group).
__device__ __forceinline__ void mbarrier_arrive_cluster(uint64* bar, uint32 rank) {
  uint32 remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(smem_addr(bar)), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

/// tma_load_2d whose box lands at the same shared offset, and completes on the
/// mbarrier at the same offset, in every CTA of the cluster named in `mask`.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const TensorMap* map, uint64* bar,
                                                      int32 c0, int32 c1, uint16 mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
               "l"(map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "h"(mask)
               : "memory");
}

/// The wgmma shared-memory matrix descriptor of a 128-byte-swizzled operand
/// (start address, leading and stride byte offsets, all multiples of 16):
/// bits 0-13 start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 62-63 swizzle mode 1.
/// K-major (rows of 64 K-elements, 128 bytes): SBO = 1024, the step between
/// 8-row swizzle atoms; LBO unused. MN-major (rows of 64 M/N-elements along K):
/// SBO = 1024 between groups of 8 K-rows, LBO = the step between 64-wide
/// column blocks. The swizzle is a function of the address bits, so a k16 step
/// inside an atom just adds bytes to the start (tiles are 1024-byte aligned).
__device__ __forceinline__ uint64 desc_sw128(uint32 smemAddr, uint32 lbo, uint32 sbo) {
  return static_cast<uint64>((smemAddr & 0x3FFFF) >> 4) | (static_cast<uint64>(lbo >> 4) << 16) |
         (static_cast<uint64>(sbo >> 4) << 32) | (1ull << 62);
}

// wgmma.mma_async m64nNk16, f32 += TY * TY, A and B from shared memory through
// descriptors, scale-d from a register (0: overwrite), imm-trans-b = TransB
// (1: B is N-major). One asm statement for every N (helion/wgmma_asm.cuh).
#include "helion/wgmma_asm.cuh"
#define HELION_WGMMA_SS(SHAPE, TY, C, C1, C2, C3, ...)                                             \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" #C2 ", 0;\n"                                 \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TY "." TY " {"                        \
               HELION_WGMMA_ACC_PTX(C) "}, %" #C ", %" #C1 ", p, 1, 1, 0, %" #C3 ";\n}\n"          \
               : HELION_WGMMA_ACC(C)                                                               \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB)                                  \
               : "memory")

/// d[64 x N] (+)= A[64 x 16] * B[16 x N]; see WgmmaAcc for d's layout.
template <int N, int TransB, class T>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64 descA, uint64 descB,
                                             int scaleD) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k16: N must be 16, 32, 64, 96, 128, 192 or 256");
  static_assert(is_same_v<T, bf16> || is_same_v<T, f16>, "wgmma_m64k16: bf16 or f16 inputs");
  if constexpr (is_same_v<T, bf16>) {
    HELION_WGMMA_DISPATCH(HELION_WGMMA_SS, "k16", "bf16");
  } else {
    HELION_WGMMA_DISPATCH(HELION_WGMMA_SS, "k16", "f16");
  }
}

#undef HELION_WGMMA_SS
#define HELION_WGMMA_ASM_END
#include "helion/wgmma_asm.cuh"

} // namespace sm90
#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
