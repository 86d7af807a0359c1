// helion/gemm_sm90.cuh: a Hopper (sm_90a) tensor-core GEMM mainloop.
//
//   C[M, N] = A[M, K] @ B[K, N]      (B given as [K, N] row-major, or as [N, K]
//                                     row-major with BTransposed = true: x @ k^T)
//
// A and B are bf16 or f16 (TIn), accumulated in f32 registers; C is whatever the
// epilogue writes. Not included by device.cuh: only matmul kernels pay for it.
//
// How it runs. One CTA = 1 producer warpgroup + `Consumers` consumer warpgroups
// (kThreads = 128 * (Consumers + 1)). Thread 0 of the producer streams BM x BK
// tiles of A and BK x BN tiles of B with TMA (cp.async.bulk.tensor) into a ring
// of `Stages` shared-memory stages, 128-byte swizzled, each completing on a
// `full` mbarrier. Consumer warpgroup c owns rows [c * kWgM, (c + 1) * kWgM) of
// the BM x BN tile and runs wgmma.mma_async m64nBNk16 on them (kWgM / 64 of them
// per k16 step), keeping one wgmma group in flight; when a stage's group is done
// each consumer warp arrives on the stage's `empty` mbarrier and the producer
// refills it. setmaxnreg gives the consumers the registers the producer does
// not need. Tiles are visited in Triton's GROUP_M order (groupM rows of tiles
// at a time, for L2 reuse), one per CTA (Persistent = false, grid = #tiles) or
// strided over a persistent grid (Persistent = true, grid = min(#SMs, #tiles)),
// where the producer already loads the next tile while the consumers run the
// epilogue of this one.
//
// Template parameters of Gemm<...>:
//   TIn          bf16 or f16 (A and B)
//   TOut         the element type of C for EpilogueForm::tma_store (bf16, f16,
//                float); unused by EpilogueForm::pairs
//   BM, BN       the CTA tile; BM = 64 * kMmaM * Consumers, BN in {16, 32, 64,
//                96, 128, 192, 256} (and a multiple of 64 unless BTransposed)
//   BK           64 (one 128-byte swizzle row of a 16-bit type)
//   Stages       depth of the TMA ring (2..8; shared memory decides)
//   Consumers    1, 2 or 3 consumer warpgroups
//   BTransposed  false: B is [K, N] row-major; true: B is [N, K] row-major
//   Persistent   see above
//   Form         EpilogueForm::pairs or EpilogueForm::tma_store (below)
//   Cluster      1, or 2: CTAs (2i, 2i+1) form a cluster on two tiles stacked
//                along M; each loads half of the B k-block and multicasts it to
//                both (B is read from L2 once per cluster). Launch with cluster
//                dimension (2, 1, 1) (cuLaunchKernelEx attribute)
//
// Epilogue (the finished f32 accumulator tile goes to a user functor `epi`):
//   pairs:     epi(int64 row, int64 col, float v0, float v1) for each pair of
//              adjacent columns (col even, v1 is at col + 1) a thread owns,
//              called only for row < M and col < N. col + 1 < N unless N is
//              odd; a functor for odd N must check it. The functor stores
//              (st.global of 2 elements) and may do anything else per element.
//   tma_store: float epi.transform(int64 row, int64 col, float v) maps each
//              in-bounds and out-of-bounds value (return v for a plain
//              matmul: IdentityTransform); the library converts to TOut,
//              writes the tile to shared memory (stmatrix, 128-byte swizzle)
//              and stores it with TMA through mapC. Needs kEpilogueBytes more
//              shared memory, and N * sizeof(TOut) a multiple of 16 bytes:
//              TMA clips rows past M, but columns past N only in 16-byte
//              steps (seen on the H100: N = 201, ldc = 208 wrote columns
//              201..207), so use it when ldc == N (TMA's stride rule then
//              makes N * sizeof(TOut) a multiple of 16) or padding may be
//              clobbered.
//
// What the host builds (helion::rt::makeTensorMap, outermost dimension first,
// Swizzle::b128, base 16-byte aligned, row strides multiples of 16 bytes):
//   mapA: A as {M, K} (stride {lda, 1}),   box {kBoxARows, kBoxACols} = {BM, 64}
//   mapB: B as {K, N} (stride {ldb, 1}),   box {kBoxBRows, kBoxBCols} = {64, 64}
//         or, BTransposed, as {N, K},      box {BN / Cluster, 64}
//   mapC: C as {M, N} (stride {ldc, 1}),   box {kBoxCRows, kBoxCCols} = {kWgM,
//         128 / sizeof(TOut)}; tma_store only (pass any map for pairs)
// Measured on the H100 (docs/gemm.md): 128x256, 3 or 4 stages, 2 consumers,
// persistent, tma_store matches cuBLAS at 4096^3 and is ~2.7 % faster at 8192^3.
// Launch: block kThreads, dynamic shared memory kSmemBytes (raise the limit
// with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) first: it is > 48 KB),
// grid gridSize(M, N, maxCtas) with maxCtas = #SMs (Cluster 2: the CTAs of
// cuOccupancyMaxActiveClusters clusters). The kernel:
//
//   template <...> __global__ void __launch_bounds__(G::kThreads, 1)
//   k(const __grid_constant__ hd::TensorMap a, const __grid_constant__ hd::TensorMap b,
//     const __grid_constant__ hd::TensorMap c, int M, int N, int K, int groupM, Epi epi) {
//     extern __shared__ __align__(1024) hd::uint8 smem[];
//     G::run(&a, &b, &c, M, N, K, groupM, epi, smem);
//   }
//
// gemm_kernel below is exactly that. The (1) in __launch_bounds__ matters:
// setmaxnreg works only under a register cap at entry.
//
// Fragment layout (for epilogues and attention): WgmmaAcc::row/col say where
// accumulator register i of thread t (0..127 within its warpgroup) of one
// m64nNk16 result sits; Gemm::acc_row/acc_col add the tile offsets.
#pragma once
#include "helion/async.cuh"
#include "helion/gemm_sm80.cuh" // GemmTiles
#include "helion/types.cuh"

namespace helion::dev {

/// How the finished accumulator tile leaves the mainloop (see the top).
enum class EpilogueForm { pairs, tma_store };

/// The transform of a plain matmul: values unchanged.
struct IdentityTransform {
  __device__ __forceinline__ float transform(int64, int64, float v) const { return v; }
};

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

/// Stores four 8x8 matrices of 16-bit pairs: lane l's r[i] is row l/4, columns
/// 2*(l%4) .. +1 of matrix i; lanes 8i .. 8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void stmatrix_x4(uint32 addr, uint32 r0, uint32 r1, uint32 r2,
                                            uint32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

/// Two floats as a 16-bit pair, `lo` at the lower address.
template <class T> __device__ __forceinline__ uint32 pack2(float lo, float hi) {
  uint32 r;
  if constexpr (is_same_v<T, bf16>)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// wgmma.mma_async m64nNk16, f32 += TY * TY, A and B from shared memory through
// descriptors, scale-d from a register (0: overwrite), imm-trans-b = TransB
// (1: B is N-major). The register lists are spelled out: PTX has no ranges.
#define HELION_ACC8(b)                                                                           \
  "+f"(d[(b) + 0]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]),      \
      "+f"(d[(b) + 5]), "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
#define HELION_ACC16(b) HELION_ACC8(b), HELION_ACC8((b) + 8)
#define HELION_ACC32(b) HELION_ACC16(b), HELION_ACC16((b) + 16)
#define HELION_ACC48(b) HELION_ACC32(b), HELION_ACC16((b) + 32)
#define HELION_ACC64(b) HELION_ACC32(b), HELION_ACC32((b) + 32)
#define HELION_ACC96(b) HELION_ACC64(b), HELION_ACC32((b) + 64)
#define HELION_ACC128(b) HELION_ACC64(b), HELION_ACC64((b) + 64)

#define HELION_WGMMA_N16(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %10, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n16k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7" \
               "}, %8, %9, p, 1, 1, 0, %11;\n}\n" \
               : HELION_ACC8(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_N32(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n32k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
               "}, %16, %17, p, 1, 1, 0, %19;\n}\n" \
               : HELION_ACC16(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_N64(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
               "}, %32, %33, p, 1, 1, 0, %35;\n}\n" \
               : HELION_ACC32(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_N96(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %50, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n96k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" \
               "}, %48, %49, p, 1, 1, 0, %51;\n}\n" \
               : HELION_ACC48(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_N128(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
               "}, %64, %65, p, 1, 1, 0, %67;\n}\n" \
               : HELION_ACC64(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_N192(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %98, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n192k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
               "}, %96, %97, p, 1, 1, 0, %99;\n}\n" \
               : HELION_ACC96(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_N256(TY) \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n" \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {" \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
               "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
               "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
               "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
               "}, %128, %129, p, 1, 1, 0, %131;\n}\n" \
               : HELION_ACC128(0) \
               : "l"(descA), "l"(descB), "r"(scaleD), "n"(TransB) \
               : "memory")

#define HELION_WGMMA_DISPATCH(TY)                                                                \
  if constexpr (N == 16)                                                                         \
    HELION_WGMMA_N16(TY);                                                                        \
  else if constexpr (N == 32)                                                                    \
    HELION_WGMMA_N32(TY);                                                                        \
  else if constexpr (N == 64)                                                                    \
    HELION_WGMMA_N64(TY);                                                                        \
  else if constexpr (N == 96)                                                                    \
    HELION_WGMMA_N96(TY);                                                                        \
  else if constexpr (N == 128)                                                                   \
    HELION_WGMMA_N128(TY);                                                                       \
  else if constexpr (N == 192)                                                                   \
    HELION_WGMMA_N192(TY);                                                                       \
  else                                                                                           \
    HELION_WGMMA_N256(TY)

/// d[64 x N] (+)= A[64 x 16] * B[16 x N]; see WgmmaAcc for d's layout.
template <int N, int TransB, class T>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64 descA, uint64 descB,
                                             int scaleD) {
  static_assert(N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256,
                "wgmma_m64k16: N must be 16, 32, 64, 96, 128, 192 or 256");
  static_assert(is_same_v<T, bf16> || is_same_v<T, f16>, "wgmma_m64k16: bf16 or f16 inputs");
  if constexpr (is_same_v<T, bf16>) {
    HELION_WGMMA_DISPATCH("bf16");
  } else {
    HELION_WGMMA_DISPATCH("f16");
  }
}

#undef HELION_WGMMA_DISPATCH
#undef HELION_WGMMA_N16
#undef HELION_WGMMA_N32
#undef HELION_WGMMA_N64
#undef HELION_WGMMA_N96
#undef HELION_WGMMA_N128
#undef HELION_WGMMA_N192
#undef HELION_WGMMA_N256
#undef HELION_ACC8
#undef HELION_ACC16
#undef HELION_ACC32
#undef HELION_ACC48
#undef HELION_ACC64
#undef HELION_ACC96
#undef HELION_ACC128

} // namespace sm90
#endif // __CUDA_ARCH__ >= 900

/// The GEMM: constants for the host and the device function `run` (see the top).
template <class TIn, class TOut, int BM, int BN, int BK = 64, int Stages = 4, int Consumers = 2,
          bool BTransposed = false, bool Persistent = true,
          EpilogueForm Form = EpilogueForm::pairs, int Cluster = 1>
struct Gemm {
  static_assert(is_same_v<TIn, bf16> || is_same_v<TIn, f16>, "Gemm: TIn must be bf16 or f16");
  static_assert(BK == 64, "Gemm: BK must be 64 (one 128-byte swizzle row of 16-bit elements)");
  static_assert(Consumers >= 1 && Consumers <= 3, "Gemm: 1 to 3 consumer warpgroups");
  static_assert(BM % (64 * Consumers) == 0, "Gemm: BM must be a multiple of 64 * Consumers");
  static_assert(BN % 16 == 0 && BN <= 256, "Gemm: BN must be a multiple of 16, at most 256");
  static_assert(BTransposed || BN % 64 == 0, "Gemm: BN must be a multiple of 64 for [K, N] B");
  static_assert(Stages >= 2, "Gemm: at least 2 stages");
  static_assert(Cluster == 1 || Cluster == 2, "Gemm: clusters of 1 or 2 CTAs");
  static_assert(BTransposed ? (BN / Cluster) % 8 == 0 : (BN / 64) % Cluster == 0,
                "Gemm: each CTA of a cluster loads an equal, whole part of B");

  static constexpr int kCluster = Cluster;
  static constexpr int kConsumers = Consumers;
  static constexpr int kThreads = 128 * (Consumers + 1);
  static constexpr int kWgM = BM / Consumers; ///< tile rows per consumer warpgroup
  static constexpr int kMmaM = kWgM / 64;     ///< m64 wgmmas per consumer per k16 step
  static constexpr int kAccRegs = kMmaM * BN / 2;
  static constexpr int kStageBytesA = BM * BK * 2;
  static constexpr int kStageBytesB = BN * BK * 2;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;
  static constexpr int kMaxSmem = 227 * 1024; ///< per CTA on sm_90
  static constexpr int kRingBytes = 1024 + Stages * kStageBytes + 16 * Stages;
  static constexpr int kTileCBytes = BM * BN * static_cast<int>(sizeof(TOut));
  /// tma_store writes the C tile in kEpilogueParts column slices through a
  /// buffer of 1/kEpilogueParts of it, the fewest slices that fit next to the
  /// ring (128x256 bf16 with 4 stages: 2 slices of 128 columns).
  static constexpr int kEpilogueParts =
      Form != EpilogueForm::tma_store || kRingBytes + kTileCBytes <= kMaxSmem ? 1
      : kRingBytes + kTileCBytes / 2 <= kMaxSmem                               ? 2
                                                                               : 4;
  static constexpr int kEpilogueBytes =
      Form == EpilogueForm::tma_store ? kTileCBytes / kEpilogueParts : 0;
  /// Dynamic shared memory: 1024 bytes of alignment slack, the ring, the C
  /// buffer for tma_store, a full and an empty mbarrier per stage.
  static constexpr int kSmemBytes = kRingBytes + kEpilogueBytes;
  static_assert(kSmemBytes <= kMaxSmem, "Gemm: over the 227 KB of shared memory of a CTA");

  // Tensor-map boxes, outermost first, in elements (all Swizzle::b128).
  static constexpr int kBoxARows = BM, kBoxACols = BK;
  static constexpr int kBoxBRows = BTransposed ? BN / Cluster : BK;
  static constexpr int kBoxBCols = BTransposed ? BK : 64;
  static constexpr int kBoxCRows = kWgM, kBoxCCols = 128 / static_cast<int>(sizeof(TOut));
  static_assert(Form == EpilogueForm::pairs || BN % (kBoxCCols * kEpilogueParts) == 0,
                "Gemm: tma_store needs BN to be a multiple of 128 bytes of TOut per slice");

  // setmaxnreg: 64K registers per SM shared by kThreads threads.
  static constexpr int kProducerRegs = Consumers == 2 ? 40 : 24;
  static constexpr int kConsumerRegs = Consumers == 2 ? 232 : 160;

  /// Work units: tiles, or with clusters, column-aligned groups of Cluster
  /// tiles stacked along M (a cluster runs one unit, CTA rank r its row r).
  __host__ __device__ static constexpr int units(int M, int N) {
    return ((M + BM * Cluster - 1) / (BM * Cluster)) * ((N + BN - 1) / BN);
  }
  /// The grid: Cluster CTAs per unit, or when persistent at most `maxCtas`
  /// (#SMs; with clusters, cudaOccupancyMaxActiveClusters * Cluster), rounded
  /// down to whole clusters.
  __host__ __device__ static constexpr int gridSize(int M, int N, int maxCtas) {
    return Persistent && maxCtas / Cluster < units(M, N) ? maxCtas / Cluster * Cluster
                                                         : units(M, N) * Cluster;
  }
  /// Row and column within the BM x BN tile of accumulator acc[mi][reg] of
  /// thread `thread` (0..127) of consumer warpgroup `consumer`.
  __host__ __device__ static constexpr int acc_row(int consumer, int thread, int mi, int reg) {
    return consumer * kWgM + 64 * mi + WgmmaAcc::row(thread, reg);
  }
  __host__ __device__ static constexpr int acc_col(int thread, int reg) {
    return WgmmaAcc::col(thread, reg);
  }

  /// The whole kernel body; every thread of the CTA calls it. `smem` is the
  /// dynamic shared memory (kSmemBytes). Uses named barriers 1..Consumers.
  template <class Epi>
  __device__ static void run(const TensorMap* mapA, const TensorMap* mapB, const TensorMap* mapC,
                             int M, int N, int K, int groupM, const Epi& epi, void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 1023) & ~1023ull);
    uint64* full = reinterpret_cast<uint64*>(base + Stages * kStageBytes + kEpilogueBytes);
    uint64* empty = full + Stages;
    if (threadIdx.x == 0) {
      for (int s = 0; s < Stages; ++s) {
        mbarrier_init(&full[s], 1); // the producer's expect_tx
        mbarrier_init(&empty[s], 4 * Consumers * Cluster); // each consumer warp of the cluster
      }
      fence_mbarrier_init();
    } else if (threadIdx.x == 32) {
      prefetch_tensormap(mapA);
      prefetch_tensormap(mapB);
      if constexpr (Form == EpilogueForm::tma_store)
        prefetch_tensormap(mapC);
    }
    if constexpr (Cluster > 1)
      sm90::cluster_sync(); // the peer's barriers exist before we multicast to them
    else
      __syncthreads();

    const int rank = Cluster > 1 ? static_cast<int>(sm90::cluster_ctarank()) : 0;
    const GemmTiles units{(M + BM * Cluster - 1) / (BM * Cluster), (N + BN - 1) / BN,
                          groupM < Cluster ? 1 : groupM / Cluster};
    const int first = blockIdx.x / Cluster;
    const int step = Persistent ? static_cast<int>(gridDim.x) / Cluster : units.count();
    const int kBlocks = (K + BK - 1) / BK;
    if (threadIdx.x < 128) {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_dec<kProducerRegs>();
      if (threadIdx.x == 0)
        produce(mapA, mapB, units, first, step, rank, kBlocks, base, full, empty);
    } else {
      if constexpr (Consumers > 1)
        sm90::setmaxnreg_inc<kConsumerRegs>();
      consume(mapC, M, N, units, first, step, rank, kBlocks, epi, base, full, empty);
    }
    if constexpr (Cluster > 1)
      sm90::cluster_sync(); // no CTA leaves while its peer may still arrive on its barriers
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
private:
  /// One thread: waits for a free stage, then loads A's and B's k-block into it.
  __device__ static void produce(const TensorMap* mapA, const TensorMap* mapB, GemmTiles units,
                                 int first, int step, int rank, int kBlocks, uint8* base,
                                 uint64* full, uint64* empty) {
    int s = 0;
    uint32 phase = 0;
    for (int t = first; t < units.count(); t += step) {
      int tm, tn;
      units.coords(t, tm, tn);
      tm = tm * Cluster + rank;
      for (int kb = 0; kb < kBlocks; ++kb) {
        mbarrier_wait(&empty[s], phase ^ 1); // a fresh barrier passes parity 1 at once
        uint8* a = base + s * kStageBytes;
        uint8* b = a + kStageBytesA;
        mbarrier_arrive_expect_tx(&full[s], kStageBytes); // whole boxes, zero-filled or not
        tma_load_2d(a, mapA, &full[s], kb * BK, tm * BM);
        if constexpr (Cluster > 1) {
          // This CTA loads its 1/Cluster of B for the whole cluster (the peers
          // load the rest into our ring): the cluster reads B from L2 once.
          constexpr uint16 kMask = (1u << Cluster) - 1;
          if constexpr (BTransposed) {
            sm90::tma_load_2d_multicast(b + rank * (BN / Cluster) * 128, mapB, &full[s], kb * BK,
                                  tn * BN + rank * (BN / Cluster), kMask);
          } else {
            constexpr int kBoxes = BN / 64 / Cluster;
#pragma unroll
            for (int c = rank * kBoxes; c < (rank + 1) * kBoxes; ++c)
              sm90::tma_load_2d_multicast(b + c * BK * 128, mapB, &full[s], tn * BN + 64 * c, kb * BK,
                                    kMask);
          }
        } else if constexpr (BTransposed) {
          tma_load_2d(b, mapB, &full[s], kb * BK, tn * BN);
        } else {
          // BN / 64 boxes of 64 K-rows x 64 columns (8 KB each, side by side).
#pragma unroll
          for (int c = 0; c < BN / 64; ++c)
            tma_load_2d(b + c * BK * 128, mapB, &full[s], tn * BN + 64 * c, kb * BK);
        }
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
    }
  }

  template <class Epi>
  __device__ static void consume(const TensorMap* mapC, int M, int N, GemmTiles units,
                                 int first, int step, int rank, int kBlocks, const Epi& epi,
                                 uint8* base, uint64* full, uint64* empty) {
    using namespace sm90;
    const int consumer = threadIdx.x / 128 - 1;
    const int tid = threadIdx.x % 128;
    float acc[kMmaM][BN / 2];
    int s = 0;
    uint32 phase = 0;
    for (int t = first; t < units.count(); t += step) {
      int tm, tn;
      units.coords(t, tm, tn);
      tm = tm * Cluster + rank;
#pragma unroll
      for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
        for (int r = 0; r < BN / 2; ++r)
          acc[mi][r] = 0.f;
      int prev = 0;
      for (int kb = 0; kb < kBlocks; ++kb) {
        mbarrier_wait(&full[s], phase);
        const uint32 a = smem_addr(base + s * kStageBytes) + consumer * kWgM * 128;
        const uint32 b = smem_addr(base + s * kStageBytes + kStageBytesA);
        const uint64 descA = desc_sw128(a, 16, 1024);
        const uint64 descB = BTransposed ? desc_sw128(b, 16, 1024) : desc_sw128(b, BK * 128, 1024);
        fence_acc(acc);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
          // K-major: a k16 step is 32 bytes along the row; N-major B: 16 K-rows.
          const uint64 stepB = BTransposed ? (kk * 32) >> 4 : (kk * 16 * 128) >> 4;
#pragma unroll
          for (int mi = 0; mi < kMmaM; ++mi)
            wgmma_m64k16<BN, BTransposed ? 0 : 1, TIn>(
                acc[mi], descA + ((mi * 64 * 128 + kk * 32) >> 4), descB + stepB, 1);
        }
        wgmma_commit();
        fence_acc(acc);
        // One group stays in flight: the previous k-block's is done, free its stage.
        wgmma_wait<1>();
        if (kb > 0 && tid % 32 == 0)
          release(&empty[prev]);
        prev = s;
        if (++s == Stages) {
          s = 0;
          phase ^= 1;
        }
      }
      wgmma_wait<0>();
      fence_acc(acc);
      if (kBlocks > 0 && tid % 32 == 0)
        release(&empty[prev]);

      const int row0 = tm * BM + consumer * kWgM; // this warpgroup's first row
      const int col0 = tn * BN;
      if constexpr (Form == EpilogueForm::pairs)
        store_pairs(acc, row0, col0, M, N, tid, epi);
      else
        store_tma(acc, row0, col0, N, tid, consumer, mapC, base + Stages * kStageBytes, epi);
    }
    if constexpr (Form == EpilogueForm::tma_store)
      if (tid == 0)
        tma_store_wait<0>(); // the last tile's shared memory is read before exit
  }

  /// Frees a stage: in every CTA of the cluster, since each one's producer
  /// writes part of B into all of them.
  __device__ static __forceinline__ void release(uint64* emptyBar) {
    if constexpr (Cluster > 1) {
#pragma unroll
      for (int r = 0; r < Cluster; ++r)
        sm90::mbarrier_arrive_cluster(emptyBar, r);
    } else {
      mbarrier_arrive(emptyBar);
    }
  }

  __device__ static __forceinline__ void fence_acc(float (&acc)[kMmaM][BN / 2]) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int r = 0; r < BN / 2; ++r)
        sm90::fence_operand(acc[mi][r]);
  }

  template <class Epi>
  __device__ static __forceinline__ void store_pairs(float (&acc)[kMmaM][BN / 2], int row0,
                                                     int col0, int M, int N, int tid,
                                                     const Epi& epi) {
    const int64 rowBase = static_cast<int64>(row0) + 16 * (tid / 32) + (tid % 32) / 4;
    const int64 colBase = static_cast<int64>(col0) + 2 * (tid % 4);
    const bool interior = row0 + kWgM <= M && col0 + BN <= N;
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64 row = rowBase + 64 * mi + 8 * h;
          const int64 col = colBase + 8 * j;
          if (interior || (row < M && col < N))
            epi(row, col, acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]);
        }
  }

  /// Writes this warpgroup's kWgM x BN slice, kEpilogueParts column slices
  /// one after the other, into its shared buffer as boxes of kWgM rows x 128
  /// bytes, 128-byte swizzled (16-byte chunk c of row r at chunk c ^ (r % 8):
  /// conflict-free), then one thread stores the boxes with TMA. The buffer is
  /// rewritten only after the previous slice's stores have read it.
  template <class Epi>
  __device__ static __forceinline__ void store_tma(float (&acc)[kMmaM][BN / 2], int row0,
                                                   int col0, int N, int tid, int consumer,
                                                   const TensorMap* mapC, uint8* cBase,
                                                   const Epi& epi) {
    using namespace sm90;
    constexpr int kBoxBytes = kWgM * 128;
    constexpr int kPartCols = BN / kEpilogueParts;
    constexpr int kBoxes = kPartCols / kBoxCCols; // per slice
    uint8* buf = cBase + consumer * kWgM * kPartCols * static_cast<int>(sizeof(TOut));
    const uint32 bufAddr = smem_addr(buf);
    const int warp = tid / 32, lane = tid % 32;
    const int64 rowT = static_cast<int64>(row0) + 16 * warp + lane / 4;
    const int64 colT = static_cast<int64>(col0) + 2 * (lane % 4);
#pragma unroll
    for (int part = 0; part < kEpilogueParts; ++part) {
      if (tid == 0)
        tma_store_wait<0>();
      named_barrier_sync(1 + consumer, 128);
      constexpr int kJ = kPartCols / 8; // 8-column groups per slice
      if constexpr (sizeof(TOut) == 2) {
        // stmatrix x4: matrices (rows 0-7, chunk j), (rows 8-15, chunk j),
        // (rows 0-7, chunk j+1), (rows 8-15, chunk j+1) of this warp's 16 rows;
        // lane l addresses row l % 8 of matrix l / 8.
        const int q = lane / 8;
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
          for (int j = part * kJ; j < (part + 1) * kJ; j += 2) {
            float v[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) {
              const int jj = j + e / 4, reg = 4 * jj + e % 4;
              v[e] = epi.transform(rowT + 64 * mi + 8 * ((e / 2) % 2), colT + 8 * jj + e % 2,
                                   acc[mi][reg]);
            }
            const int rowIn = 64 * mi + 16 * warp + 8 * (q % 2) + lane % 8;
            const int chunk = (j % 8) + q / 2;
            const uint32 addr = bufAddr + (j / 8 - part * kBoxes) * kBoxBytes + rowIn * 128 +
                                ((chunk ^ (lane % 8)) << 4);
            stmatrix_x4(addr, pack2<TOut>(v[0], v[1]), pack2<TOut>(v[2], v[3]),
                        pack2<TOut>(v[4], v[5]), pack2<TOut>(v[6], v[7]));
          }
      } else {
        static_assert(sizeof(TOut) == 4, "Gemm: tma_store writes 2- or 4-byte elements");
#pragma unroll
        for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
          for (int j = part * kJ; j < (part + 1) * kJ; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int64 row = rowT + 64 * mi + 8 * h;
              const int64 col = colT + 8 * j;
              const float v0 = epi.transform(row, col, acc[mi][4 * j + 2 * h]);
              const float v1 = epi.transform(row, col + 1, acc[mi][4 * j + 2 * h + 1]);
              const int rowIn = 64 * mi + 16 * warp + lane / 4 + 8 * h;
              const int chunk = 2 * (j % 4) + (lane % 4) / 2;
              const uint32 addr = bufAddr + (j / 4 - part * kBoxes) * kBoxBytes + rowIn * 128 +
                                  ((chunk ^ (lane / 4)) << 4) + (lane % 2) * 8;
              asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(v0), "f"(v1)
                           : "memory");
            }
      }
      fence_proxy_async_shared();
      named_barrier_sync(1 + consumer, 128);
      if (tid == 0) {
#pragma unroll
        for (int b = 0; b < kBoxes; ++b) {
          const int col = col0 + (part * kBoxes + b) * kBoxCCols;
          if (col < N)
            tma_store_2d(mapC, buf + b * kBoxBytes, col, row0);
        }
        tma_store_commit();
      }
    }
  }
#endif // __CUDA_ARCH__ >= 900
};

/// The kernel of a Gemm configuration G (what helionc emits, spelled once here
/// for tests and direct use).
template <class G, class Epi>
__global__ void __launch_bounds__(G::kThreads, 1)
    gemm_kernel(const __grid_constant__ TensorMap mapA, const __grid_constant__ TensorMap mapB,
                const __grid_constant__ TensorMap mapC, int M, int N, int K, int groupM, Epi epi) {
  extern __shared__ __align__(1024) uint8 gemm_smem[];
  G::run(&mapA, &mapB, &mapC, M, N, K, groupM, epi, gemm_smem);
}

} // namespace helion::dev
