// helion/async.cuh: asynchronous copies into shared memory.
//
// - cp.async (sm_80+): per-thread 4/8/16-byte copies global -> shared, grouped
//   by commit_group and awaited by wait_group: the `block_ptr` indexing's
//   num_stages pipeline.
// - mbarrier (sm_80+; expect_tx and try_wait need sm_90): a shared 64-bit
//   barrier counting arrivals and, on Hopper, bytes delivered by the copy engine.
// - TMA (sm_90+): cp.async.bulk.tensor copies of a whole tile described by a
//   tensor map built on the host (helion::rt::makeTensorMap), completing on an
//   mbarrier: the `tensor_descriptor` indexing.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

/// The 32-bit shared-window address of a shared memory pointer.
__device__ __forceinline__ uint32 smem_addr(const void* p) {
  return static_cast<uint32>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------
// cp.async

/// Copies the first `srcBytes` (0 to Bytes) of Bytes (4, 8 or 16) bytes from
/// global `src` to shared `dst`, both aligned to Bytes, and zero-fills the
/// rest of `dst`: a row's ragged end needs no branch. With srcBytes == 0
/// nothing is read, so `src` may point out of bounds.
template <int Bytes>
__device__ __forceinline__ void cp_async_zfill(void* dst, const void* src, int srcBytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp_async copies 4, 8 or 16 bytes");
  if constexpr (Bytes == 16)  // .cg: cache in L2 only; 16 bytes is its only size
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(srcBytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(smem_addr(dst)),
                 "l"(src), "n"(Bytes), "r"(srcBytes)
                 : "memory");
}

/// Copies Bytes (4, 8 or 16) from global `src` to shared `dst`, both aligned to
/// Bytes. When `pred` is false nothing is read and `dst` is zero-filled.
template <int Bytes>
__device__ __forceinline__ void cp_async(void* dst, const void* src, bool pred = true) {
  cp_async_zfill<Bytes>(dst, src, pred ? Bytes : 0);
}

/// A staged load's copy of one vector (EmitStaging.cpp): cp.async for 4, 8 and
/// 16 bytes; narrower vectors (one f16) are copied synchronously.
template <int Bytes>
__device__ __forceinline__ void stage_copy(void* dst, const void* src, bool pred) {
  if constexpr (Bytes == 4 || Bytes == 8 || Bytes == 16) {
    cp_async<Bytes>(dst, src, pred);
  } else {
    struct alignas(Bytes) Chunk { uint8 b[Bytes]; };
    *static_cast<Chunk*>(dst) = pred ? *static_cast<const Chunk*>(src) : Chunk{};
  }
}

/// Closes the group of cp.async issued by this thread since the last commit.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits until at most `Pending` of this thread's committed groups are in
/// flight. Other threads' copies need a __syncthreads() after it.
template <int Pending> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// ---------------------------------------------------------------------------
// mbarrier: a 64-bit word in shared memory. Its phase flips each time the
// expected arrivals (and, on sm_90, the expected transaction bytes) are in;
// waiters wait on the parity of the phase they expect to complete.

/// Initializes the barrier for `count` arrivals per phase (one thread does it,
/// then fence_mbarrier_init() and a __syncthreads() publish it).
__device__ __forceinline__ void mbarrier_init(uint64* bar, uint32 count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)
               : "memory");
}

__device__ __forceinline__ void mbarrier_inval(uint64* bar) {
  asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/// Arrives once; returns the barrier state (rarely needed).
__device__ __forceinline__ uint64 mbarrier_arrive(uint64* bar) {
  uint64 state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(smem_addr(bar))
               : "memory");
  return state;
}

/// Makes the barrier's next arrive from this thread count when this thread's
/// prior cp.async have landed (the noinc form: the arrival is one of `count`).
__device__ __forceinline__ void cp_async_mbarrier_arrive(uint64* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(smem_addr(bar))
               : "memory");
}

/// True when the phase with parity `phase` has completed (non-blocking).
__device__ __forceinline__ bool mbarrier_test_wait_parity(uint64* bar, uint32 phase) {
  uint32 done;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
               " selp.u32 %0, 1, 0, p;\n}"
               : "=r"(done) : "r"(smem_addr(bar)), "r"(phase) : "memory");
  return done != 0;
}

#if __CUDA_ARCH__ >= 900

/// Orders this thread's mbarrier_init before the async proxy (TMA) uses it.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// Orders this thread's ordinary shared-memory writes before later reads of the
/// same memory by the copy engine or the tensor cores (then a barrier).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/// Arrives once and adds `bytes` to the transaction count the current phase
/// waits for (the bytes the TMA loads issued for it will deliver).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64* bar, uint32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

/// One bounded wait for the phase with parity `phase`; true when it completed.
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint64* bar, uint32 phase) {
  uint32 done;
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               " selp.u32 %0, 1, 0, p;\n}"
               : "=r"(done) : "r"(smem_addr(bar)), "r"(phase) : "memory");
  return done != 0;
}

/// Blocks until the phase with parity `phase` has completed.
__device__ __forceinline__ void mbarrier_wait(uint64* bar, uint32 phase) {
  while (!mbarrier_try_wait_parity(bar, phase)) {
  }
}

#else

__device__ __forceinline__ void mbarrier_wait(uint64* bar, uint32 phase) {
  while (!mbarrier_test_wait_parity(bar, phase)) {
  }
}

#endif  // __CUDA_ARCH__ >= 900

/// Traps unless the launch gave at least `bytes` of dynamic shared memory: the host
/// launchers compute the templates' kSmemBytes on their own, and this checks that the
/// two agree (sm_90+; a no-op before).
__device__ __forceinline__ void check_dynamic_smem(unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned dynamic_smem;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_smem));
  if (dynamic_smem < bytes) __trap();
#endif
}

// ---------------------------------------------------------------------------
// TMA (sm_90+)

/// The device view of a host CUtensorMap: 128 opaque bytes, 64-byte aligned.
/// Pass it to the kernel by value as `const __grid_constant__ TensorMap`.
struct alignas(64) TensorMap {
  uint64 opaque[16];
};

#if __CUDA_ARCH__ >= 900

/// Fetches the tensor map into the descriptor cache ahead of its first use.
__device__ __forceinline__ void prefetch_tensormap(const TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

/// Loads the box at coordinates (c0 innermost, c1, c2: elements, may be out of
/// bounds, which reads zeros) into shared `dst` (128-byte aligned); completion
/// adds the box's bytes to `bar`'s transaction count. One thread issues it.
__device__ __forceinline__ void tma_load_1d(void* dst, const TensorMap* map, uint64* bar,
                                            int32 c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3}], [%2];" ::"r"(smem_addr(dst)),
               "l"(map), "r"(smem_addr(bar)), "r"(c0)
               : "memory");
}

__device__ __forceinline__ void tma_load_2d(void* dst, const TensorMap* map, uint64* bar,
                                            int32 c0, int32 c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
               "l"(map), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
               : "memory");
}

__device__ __forceinline__ void tma_load_3d(void* dst, const TensorMap* map, uint64* bar,
                                            int32 c0, int32 c1, int32 c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_addr(dst)),
               "l"(map), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// Stores shared `src` to the box at the coordinates (out-of-bounds parts are
/// not written). Write `src` with ordinary stores, then fence_proxy_async_shared()
/// and a barrier, before one thread issues this; then tma_store_commit() and
/// tma_store_wait<0>() before `src` is reused or the kernel exits.
__device__ __forceinline__ void tma_store_1d(const TensorMap* map, const void* src, int32 c0) {
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];" ::"l"(
                   map),
               "r"(smem_addr(src)), "r"(c0)
               : "memory");
}

__device__ __forceinline__ void tma_store_2d(const TensorMap* map, const void* src, int32 c0,
                                             int32 c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   map),
               "r"(smem_addr(src)), "r"(c0), "r"(c1)
               : "memory");
}

__device__ __forceinline__ void tma_store_3d(const TensorMap* map, const void* src, int32 c0,
                                             int32 c1, int32 c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(map),
      "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/// Waits until at most `Pending` committed store groups still read shared
/// memory (enough to reuse the buffer; the global writes may still be landing).
template <int Pending> __device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

/// Waits until at most `Pending` committed store groups are incomplete,
/// global writes included (before this CTA reads them back itself).
template <int Pending> __device__ __forceinline__ void tma_store_wait_complete() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
}

#endif  // __CUDA_ARCH__ >= 900

}  // namespace helion::dev
