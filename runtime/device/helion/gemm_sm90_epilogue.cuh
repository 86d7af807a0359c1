// helion/gemm_sm90_epilogue.cuh: how gemm_sm90.cuh's finished f32 accumulator
// tile leaves the consumer warpgroups (part of gemm_sm90.cuh, which includes it).
//
//   EpilogueForm::pairs      epilogue_store_pairs: the user functor stores each pair
//                            of adjacent columns from registers
//   EpilogueForm::tma_store  epilogue_store_tma: epi.transform per element, convert
//                            to TOut, stmatrix (16-bit; st.shared of pairs for 8- and
//                            32-bit) into a 128-byte-swizzled shared buffer, one TMA
//                            store per 64-row x 128-byte box
//
// The contracts of the functors are at the top of gemm_sm90.cuh.
#pragma once
#include "helion/async.cuh"
#include "helion/gemm_sm90_pipeline.cuh" // named_barrier_sync, WgmmaAcc
#include "helion/math.cuh"               // pack2_rn
#include "helion/types.cuh"

namespace helion::dev {

/// How the finished accumulator tile leaves the mainloop (see the top).
enum class EpilogueForm { pairs, tma_store };

/// The transform of a plain matmul: values unchanged.
struct IdentityTransform {
  __device__ __forceinline__ float transform(int64, int64, float v) const { return v; }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace sm90 {

/// Stores four 8x8 matrices of 16-bit pairs: lane l's r[i] is row l/4, columns
/// 2*(l%4) .. +1 of matrix i; lanes 8i .. 8i+7 give the row addresses of matrix i.
__device__ __forceinline__ void stmatrix_x4(uint32 addr, uint32 r0, uint32 r1, uint32 r2,
                                            uint32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}


/// Element r of m64 row block mi of an accumulator: acc[mi][r] of a GEMM's
/// float[MmaM][BN / 2], acc[r] of one float[BN / 2] (attention's O; mi is 0).
template <int M, int C> __device__ __forceinline__ float accAt(float (&acc)[M][C], int mi, int r) {
  return acc[mi][r];
}
template <int C> __device__ __forceinline__ float accAt(float (&acc)[C], int, int r) {
  return acc[r];
}

/// EpilogueForm::pairs: epi(row, col, v0, v1) for each pair of adjacent columns
/// this thread owns in its warpgroup's WgM x BN slice of the tile at (row0, col0),
/// only where row < M && col < N. `acc` holds MmaM m64nBNk16 results (WgmmaAcc).
template <int MmaM, int BN, int WgM, class Epi>
__device__ __forceinline__ void epilogue_store_pairs(float (&acc)[MmaM][BN / 2], int row0, int col0,
                                                     int M, int N, int tid, const Epi& epi) {
  const int64 rowBase = static_cast<int64>(row0) + 16 * (tid / 32) + (tid % 32) / 4;
  const int64 colBase = static_cast<int64>(col0) + 2 * (tid % 4);
  const bool interior = row0 + WgM <= M && col0 + BN <= N;
#pragma unroll
  for (int mi = 0; mi < MmaM; ++mi)
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

/// Writes this warpgroup's WgM x BN slice, Parts column slices
/// one after the other, into its shared buffer as boxes of WgM rows x 128
/// bytes, 128-byte swizzled (16-byte chunk c of row r at chunk c ^ (r % 8):
/// conflict-free), then one thread stores the boxes with TMA. The buffer is
/// rewritten only after the previous slice's stores have read it.
/// `tid` is the thread (0..127) in consumer warpgroup `consumer`, which uses named
/// barrier Barrier + consumer and the buffer at cBase + consumer * WgM * BN / Parts
/// elements; mapC's box is {WgM, 128 / sizeof(TOut)}. The caller waits for the last
/// stores (tma_store_wait<0>, thread 0) before its shared memory goes away. Batched: mapC
/// is 3-D {batches, M, N} (box one batch deep) and the boxes go to batch `batch`. `acc`:
/// float[MmaM][BN / 2] or, with MmaM 1, float[BN / 2] (accAt).
template <class TOut, int MmaM, int BN, int WgM, int Parts, bool Batched = false,
          int Barrier = 1, class Acc, class Epi>
__device__ __forceinline__ void epilogue_store_tma(Acc& acc, int row0, int col0, int N, int tid,
                                                   int consumer, const TensorMap* mapC,
                                                   uint8* cBase, const Epi& epi, int batch = 0) {
  constexpr int kBoxCCols = 128 / static_cast<int>(sizeof(TOut));
  constexpr int kBoxBytes = WgM * 128;
  constexpr int kPartCols = BN / Parts;
  constexpr int kBoxes = kPartCols / kBoxCCols; // per slice
  uint8* buf = cBase + consumer * WgM * kPartCols * static_cast<int>(sizeof(TOut));
  const uint32 bufAddr = smem_addr(buf);
  const int warp = tid / 32, lane = tid % 32;
  const int64 rowT = static_cast<int64>(row0) + 16 * warp + lane / 4;
  const int64 colT = static_cast<int64>(col0) + 2 * (lane % 4);
#pragma unroll
  for (int part = 0; part < Parts; ++part) {
    if (tid == 0)
      tma_store_wait<0>();
    named_barrier_sync(Barrier + consumer, 128);
    constexpr int kJ = kPartCols / 8; // 8-column groups per slice
    if constexpr (sizeof(TOut) == 2) {
      // stmatrix x4: matrices (rows 0-7, chunk j), (rows 8-15, chunk j),
      // (rows 0-7, chunk j+1), (rows 8-15, chunk j+1) of this warp's 16 rows;
      // lane l addresses row l % 8 of matrix l / 8.
      const int q = lane / 8;
#pragma unroll
      for (int mi = 0; mi < MmaM; ++mi)
#pragma unroll
        for (int j = part * kJ; j < (part + 1) * kJ; j += 2) {
          float v[8];
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            const int jj = j + e / 4, reg = 4 * jj + e % 4;
            v[e] = epi.transform(rowT + 64 * mi + 8 * ((e / 2) % 2), colT + 8 * jj + e % 2,
                                 accAt(acc, mi, reg));
          }
          const int rowIn = 64 * mi + 16 * warp + 8 * (q % 2) + lane % 8;
          const int chunk = (j % 8) + q / 2;
          const uint32 addr = bufAddr + (j / 8 - part * kBoxes) * kBoxBytes + rowIn * 128 +
                              ((chunk ^ (lane % 8)) << 4);
          stmatrix_x4(addr, pack2_rn<TOut>(v[0], v[1]), pack2_rn<TOut>(v[2], v[3]),
                      pack2_rn<TOut>(v[4], v[5]), pack2_rn<TOut>(v[6], v[7]));
        }
    } else {
      // 8- and 32-bit: a thread's two adjacent columns of a row as one store, 8 bytes
      // (st.shared.v2.f32: chunk 2 (j % 4) + (lane % 4) / 2, 32 columns to a box) or 2
      // (stmatrix has no 8-bit form; st.shared.u16: bytes 8 (j % 2) + 2 (lane % 4) of
      // chunk (j % 16) / 2, 128 columns to a box).
      static_assert(sizeof(TOut) == 1 || sizeof(TOut) == 4,
                    "Gemm: tma_store writes 1-, 2- or 4-byte elements");
#pragma unroll
      for (int mi = 0; mi < MmaM; ++mi)
#pragma unroll
        for (int j = part * kJ; j < (part + 1) * kJ; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int64 row = rowT + 64 * mi + 8 * h;
            const int64 col = colT + 8 * j;
            const float v0 = epi.transform(row, col, accAt(acc, mi, 4 * j + 2 * h));
            const float v1 = epi.transform(row, col + 1, accAt(acc, mi, 4 * j + 2 * h + 1));
            const int rowIn = 64 * mi + 16 * warp + lane / 4 + 8 * h;
            if constexpr (sizeof(TOut) == 4) {
              const int chunk = 2 * (j % 4) + (lane % 4) / 2;
              const uint32 addr = bufAddr + (j / 4 - part * kBoxes) * kBoxBytes + rowIn * 128 +
                                  ((chunk ^ (lane / 4)) << 4) + (lane % 2) * 8;
              asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(v0), "f"(v1)
                           : "memory");
            } else {
              const TOut o0 = from_compute<TOut>(v0), o1 = from_compute<TOut>(v1);
              const unsigned short pair = static_cast<unsigned short>(
                  *reinterpret_cast<const unsigned char*>(&o0) |
                  (*reinterpret_cast<const unsigned char*>(&o1) << 8));
              const int chunk = (j % 16) / 2;
              const uint32 addr = bufAddr + (j / 16 - part * kBoxes) * kBoxBytes + rowIn * 128 +
                                  ((chunk ^ (lane / 4)) << 4) + (j % 2) * 8 + 2 * (lane % 4);
              asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(pair) : "memory");
            }
          }
    }
    fence_proxy_async_shared();
    named_barrier_sync(Barrier + consumer, 128);
    if (tid == 0) {
#pragma unroll
      for (int b = 0; b < kBoxes; ++b) {
        const int col = col0 + (part * kBoxes + b) * kBoxCCols;
        if (col < N) {
          if constexpr (Batched)
            tma_store_3d(mapC, buf + b * kBoxBytes, col, row0, batch);
          else
            tma_store_2d(mapC, buf + b * kBoxBytes, col, row0);
        }
      }
      tma_store_commit();
    }
  }
}

} // namespace sm90
#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
