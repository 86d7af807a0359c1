// helion/gemm_sm80.cuh: a portable (sm_80+) tensor-core GEMM mainloop.
//
//   C[M, N] = A[M, K] @ B[K, N]      (B given as [K, N] row-major, or as [N, K]
//                                     row-major with BTransposed = true)
//
// The fallback of gemm_sm90.cuh (which includes this header), and the f32
// (tf32) GEMM on every GPU: cp.async multi-stage pipeline, ldmatrix, mma.sync
// m16n8k16 (bf16, f16) or m16n8k8 (tf32: f32 inputs rounded to nearest tf32,
// cvt.rna, at fragment load), f32 accumulators in registers, and the same
// per-element epilogue as the sm90 path's pairs form.
//
// How it runs. One CTA of 256 threads (8 warps, WarpsM x WarpsN) computes a
// BM x BN tile; warp (wm, wn) owns the (BM / WarpsM) x (BN / WarpsN) sub-tile
// at (wm * BM / WarpsM, wn * BN / WarpsN). Every thread copies 16-byte chunks
// of A's BM x BK and B's k-block into a ring of `Stages` shared-memory stages
// (cp.async, zero-filled past M, N, K), Stages - 1 k-blocks ahead of the math.
// Shared rows are 128 bytes (BK = 64 16-bit or 32 f32 elements), 16-byte chunk
// c of row r stored at chunk c ^ (r % 8), so ldmatrix reads 8 rows of one
// column without bank conflicts. B as [K, N] is kept as panels of BK rows x 128
// bytes and read with ldmatrix.trans (16-bit) or, for tf32, where ldmatrix has
// no 32-bit transpose, with one 4-byte shared load per fragment register (2-way
// bank conflicts); B as [N, K] is kept like A. For 32-bit elements ldmatrix
// (b16) still fits A and [N, K] B: an 8 x 16-byte matrix gives lane l the word
// (row l / 4, column l % 4), which is the m16n8k8 tf32 fragment layout. Tiles
// are in GemmTiles order.
//
// 8-bit floats (A [M, K] and B [N, K] both K-major): the same 128-byte rows
// (BK = 128) and ldmatrix.x4 addresses as 16-bit A, now over 32 k per step, give
// lane l the words (row g = l / 4, k 4t..4t+3 of a 16-byte chunk, t = l % 4)
// of A and (column g, the same k) of B. Each word is widened to two f16x2
// (f8x4_to_f16x2: k 4t, 4t+1 and 4t+2, 4t+3) and played as the k 2t, 2t+1
// and 2t+8, 2t+9 of an m16n8k16 fragment, for A and B alike: a permutation of
// k inside the chunk that both operands share, so the sum is unchanged. Two
// mma.sync per k32 step; the e4m3 sums are scaled by f8ProductScale at the end.
//
// Template parameters of GemmSm80<...>:
//   TIn          bf16 or f16, or float (computed as tf32), or f8e4m3 / f8e5m2 with
//                BTransposed (widened to f16 in registers: below)
//   BM, BN       the CTA tile; BM / WarpsM and BN / WarpsN multiples of 16
//   BK           128 bytes of TIn: 64 (bf16, f16), 32 (float) or 128 (8-bit)
//   Stages       depth of the cp.async ring (2..6; kSmemBytes grows with it)
//   BTransposed  false: B is [K, N] row-major; true: B is [N, K] row-major
//   WarpsM, WarpsN  the warp grid (WarpsM * WarpsN == 8)
//   MinBlocks    CTAs per SM asked of __launch_bounds__ (2 caps registers at
//                128 and needs 2 * kSmemBytes of shared memory per SM)
//
// A product scaled per K block (gemm_tiles.cuh has_kscale): the steps of each block of
// kKScaleBlock elements add into a part, added to acc times kscale_row * kscale_col.
//
// Epilogue: epi(int64 row, int64 col, float v0, float v1) for each pair of
// adjacent columns (col even) a thread owns, only for row < M and col < N
// (col + 1 < N unless N is odd), exactly as EpilogueForm::pairs of the sm90
// path. Fragment layout of the m16n8 accumulator tile: Mma16x8Acc.
//
// Host requirements: A, B 16-byte aligned, lda and ldb multiples of 16 bytes
// (8 16-bit or 4 f32 elements: each 16-byte chunk of a row is one cp.async); block kThreads (256),
// dynamic shared memory kSmemBytes (raise the limit: > 48 KB), grid
// gridSize(M, N) (one CTA per tile). gemm_sm80_kernel below is the kernel.
#pragma once
#include "helion/async.cuh"
#include "helion/gemm_fp8.cuh"
#include "helion/gemm_tiles.cuh"
#include "helion/types.cuh"

namespace helion::dev {

/// Where register `reg` (0..3) of lane `lane` sits in the 16 x 8 f32 result of
/// one mma.sync m16n8k16: row lane / 4 (+ 8 for regs 2, 3), column
/// 2 * (lane % 4) + reg % 2. The wgmma layout (WgmmaAcc) is this one repeated.
struct Mma16x8Acc {
  __host__ __device__ static constexpr int row(int lane, int reg) {
    return lane / 4 + 8 * (reg / 2);
  }
  __host__ __device__ static constexpr int col(int lane, int reg) {
    return 2 * (lane % 4) + reg % 2;
  }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace sm80 {

__device__ __forceinline__ void ldmatrix_x4(uint32 (&r)[4], uint32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32 (&r)[4], uint32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/// d[16 x 8] += a[16 x 16] * b[16 x 8] (row.col), f32 accumulation.
template <class T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32 (&a)[4], uint32 b0,
                                             uint32 b1) {
  if constexpr (is_same_v<T, bf16>)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// d[16 x 8] += a[16 x 8] * b[8 x 8] (row.col) in tf32, f32 accumulation. a, b:
/// tf32 bit patterns (to_tf32). Fragments: a0 (row g, k t), a1 (g + 8, t),
/// a2 (g, t + 4), a3 (g + 8, t + 4); b0 (k t, col g), b1 (t + 4, g); g = lane / 4,
/// t = lane % 4; d as in m16n8k16 (Mma16x8Acc).
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const uint32 (&a)[4], uint32 b0,
                                                 uint32 b1) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// The f32 with bits `f` rounded to the nearest tf32 (ties away), as bits.
__device__ __forceinline__ uint32 to_tf32(uint32 f) {
  uint32 r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(f)));
  return r;
}

/// A 4-byte load from a shared-window address.
__device__ __forceinline__ uint32 lds32(uint32 addr) {
  uint32 r;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r) : "r"(addr));
  return r;
}

/// cp_async_zfill<16> to a shared-window address (saves the generic->shared
/// conversion per copy).
__device__ __forceinline__ void cp_async_zfill_s(uint32 dst, const void* src, int srcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
               "r"(srcBytes)
               : "memory");
}

/// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a 128-byte-row,
/// chunk-xor-swizzled block.
__device__ __forceinline__ uint32 swizzle128(int row, int chunk) {
  return static_cast<uint32>(row * 128 + ((chunk ^ (row % 8)) << 4));
}

} // namespace sm80
#endif // __CUDA_ARCH__ >= 800

template <class TIn, int BM = 128, int BN = 128, int BK = 64, int Stages = 4,
          bool BTransposed = false, int WarpsM = 2, int WarpsN = 4, int MinBlocks = 1>
struct GemmSm80 {
  static_assert(is_same_v<TIn, bf16> || is_same_v<TIn, f16> || is_same_v<TIn, float> ||
                    is_float8_v<TIn>,
                "GemmSm80: TIn must be bf16, f16, float (tf32), f8e4m3 or f8e5m2");
  static_assert(!is_float8_v<TIn> || BTransposed,
                "GemmSm80: 8-bit operands need B as [N, K] (K-major)");
  static_assert(BK * sizeof(TIn) == 128, "GemmSm80: BK must be 128 bytes of TIn (shared rows)");
  static_assert(WarpsM * WarpsN == 8, "GemmSm80: 8 warps");
  static_assert((BM / WarpsM) % 16 == 0 && (BN / WarpsN) % 16 == 0,
                "GemmSm80: warp tiles must be multiples of 16 x 16");
  static_assert(BTransposed || BN % 64 == 0, "GemmSm80: BN must be a multiple of 64 for [K, N] B");
  static_assert(Stages >= 2, "GemmSm80: at least 2 stages");

  using In = TIn;
  static constexpr int kThreads = 256;
  static constexpr int kMinBlocks = MinBlocks; ///< CTAs per SM for __launch_bounds__
  static constexpr int kWarpM = BM / WarpsM, kWarpN = BN / WarpsN;
  static constexpr int kMt = kWarpM / 16, kNt = kWarpN / 8; ///< m16 and n8 tiles per warp
  static constexpr bool kTf32 = is_same_v<TIn, float>;
  static constexpr int kChunk = 16 / static_cast<int>(sizeof(TIn)); ///< elements per 16 bytes
  static constexpr bool kF8 = is_float8_v<TIn>;
  static constexpr int kMmaK = kTf32 ? 8 : kF8 ? 32 : 16; ///< K of one step (kF8: 2 mma.sync)
  static constexpr int kStageBytesA = BM * 128;
  static constexpr int kStageBytesB = BN * 128;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;
  static constexpr int kSmemBytes = 128 + Stages * kStageBytes; ///< 128: alignment slack

  __host__ __device__ static constexpr int tiles(int M, int N) {
    return ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  }
  __host__ __device__ static constexpr int gridSize(int M, int N) { return tiles(M, N); }

  /// Row and column within the BM x BN tile of acc[mt][nt][reg] of thread `thread`.
  __host__ __device__ static constexpr int acc_row(int thread, int mt, int reg) {
    return (thread / 32) / WarpsN * kWarpM + 16 * mt + Mma16x8Acc::row(thread % 32, reg);
  }
  __host__ __device__ static constexpr int acc_col(int thread, int nt, int reg) {
    return (thread / 32) % WarpsN * kWarpN + 8 * nt + Mma16x8Acc::col(thread % 32, reg);
  }

  /// f(mt, nt, r) for each accumulator register acc[mt][nt][r] of a thread.
  template <class F> __device__ static __forceinline__ void each_acc(F&& f) {
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          f(mt, nt, r);
  }

  /// The whole kernel body; every thread calls it. `smem`: kSmemBytes of
  /// dynamic shared memory.
  template <class Epi>
  __device__ static void run(const TIn* a, const TIn* b, int M, int N, int K, int64 lda, int64 ldb,
                             int groupM, const Epi& epi, void* smem) {
    run_tile(a, b, M, N, K, lda, ldb, groupM, static_cast<int>(blockIdx.x), epi, smem);
  }

  /// Batched: C[tb] = A[tb] @ B[tb] for tb = blockIdx.y (grid (gridSize(M, N),
  /// batches)), A[tb] at a + tb * strideA, B[tb] at b + tb * strideB; the functor
  /// takes the batch first, epi(batch, row, col, v0, v1) (BatchEpilogue).
  template <class Epi>
  __device__ static void run_batched(const TIn* a, const TIn* b, int M, int N, int K, int64 lda,
                                     int64 ldb, int64 strideA, int64 strideB, int groupM,
                                     const Epi& epi, void* smem) {
    const int64 tb = blockIdx.y;
    run_tile(a + tb * strideA, b + tb * strideB, M, N, K, lda, ldb, groupM,
             static_cast<int>(blockIdx.x), BatchEpilogue<Epi>{epi, tb}, smem);
  }

  /// One BM x BN tile, number `tile` in GemmTiles order.
  template <class Epi>
  __device__ static __forceinline__ void run_tile(const TIn* a, const TIn* b, int M, int N, int K,
                                                  int64 lda, int64 ldb, int groupM, int tile,
                                                  const Epi& epi, void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace sm80;
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 127) & ~127ull);
    const GemmTiles tiles{(M + BM - 1) / BM, (N + BN - 1) / BN, groupM < 1 ? 1 : groupM};
    int tm, tn;
    tiles.coords(tile, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int kBlocks = (K + BK - 1) / BK;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / WarpsN, wn = warp % WarpsN;

    // Copies k-block kb into stage s. Each thread always copies the same
    // 16-byte column chunk of rows r, r + kStep, ... (kStep = 256 / chunks per
    // row, a multiple of 8, so the swizzle (r % 8) is the same for all of
    // them): one base pointer and one shared offset per operand, and the edge
    // masks split into a per-row and a per-chunk part.
    constexpr int kStepA = kThreads / 8;
    const int ca = tid % 8, ra = tid / 8;
    const TIn* gA = a + (m0 + ra) * lda + kChunk * ca;
    const uint32 dA = swizzle128(ra, ca);
    constexpr int kChunksB = BTransposed ? 8 : BN / kChunk; // 16-byte chunks per global row
    constexpr int kStepB = kThreads / kChunksB;
    constexpr int kRowsB = BTransposed ? BN : BK;
    static_assert(kThreads % kChunksB == 0 && kStepB % (BTransposed ? 8 : 4) == 0 &&
                      kRowsB % kStepB == 0 && BM % kStepA == 0,
                  "GemmSm80: tile does not split evenly over 256 threads");
    const int cb = tid % kChunksB, rb = tid / kChunksB;
    const TIn* gB = BTransposed ? b + (n0 + rb) * ldb + kChunk * cb : b + rb * ldb + n0 + kChunk * cb;
    const uint32 dB = BTransposed ? swizzle128(rb, cb) : (cb / 8) * (BK * 128) + swizzle128(rb, cb % 8);
    const int nRemain = N - n0 - kChunk * cb; // [K, N] B: the chunk's columns left
    auto bytes16 = [](int remain) {
      return remain >= kChunk ? 16 : remain > 0 ? static_cast<int>(sizeof(TIn)) * remain : 0;
    };
    auto load = [&](int kb, int s) {
      const uint32 sa = smem_addr(base + s * kStageBytes);
      const uint32 sb = sa + kStageBytesA;
      const int k0 = kb * BK;
      const int bytesA = bytes16(K - k0 - kChunk * ca);
#pragma unroll
      for (int it = 0; it < BM / kStepA; ++it) {
        const int bytes = m0 + ra + it * kStepA < M ? bytesA : 0;
        const TIn* src = bytes ? gA + it * kStepA * lda + k0 : a;
        cp_async_zfill_s(sa + dA + it * kStepA * 128, src, bytes);
      }
      if constexpr (BTransposed) {
        const int bytesK = bytes16(K - k0 - kChunk * cb);
#pragma unroll
        for (int it = 0; it < kRowsB / kStepB; ++it) {
          const int bytes = n0 + rb + it * kStepB < N ? bytesK : 0;
          const TIn* src = bytes ? gB + it * kStepB * ldb + k0 : b;
          cp_async_zfill_s(sb + dB + it * kStepB * 128, src, bytes);
        }
      } else {
        const int bytesN = bytes16(nRemain);
#pragma unroll
        for (int it = 0; it < kRowsB / kStepB; ++it) {
          const int bytes = k0 + rb + it * kStepB < K ? bytesN : 0;
          const TIn* src = bytes ? gB + (k0 + it * kStepB) * ldb : b;
          // kStepB = 4 (f32 rows of BN = 256): odd steps flip the row's bit 2,
          // i.e. chunk bit 2 of the swizzle.
          const uint32 d = kStepB % 8 == 0 || it % 2 == 0 ? dB : dB ^ 64u;
          cp_async_zfill_s(sb + d + it * kStepB * 128, src, bytes);
        }
      }
    };

    float acc[kMt][kNt][4];
    // A product scaled per K block (gemm_tiles.cuh, has_kscale): the mma.sync steps of a
    // block add into `part`, which is then added to acc times the block's row and column
    // factors and zeroed (promote). Else the steps add into acc itself.
    constexpr bool kKScale = has_kscale<Epi>;
    float part[kMt][kNt][4];
    float (&dst)[kMt][kNt][4] = kKScale ? part : acc;
    each_acc([&](int mt, int nt, int r) { acc[mt][nt][r] = part[mt][nt][r] = 0.f; });
    auto promote = [&](int blk) {
      if constexpr (kKScale) {
        constexpr bool kColUniform = Epi::kKScaleColBlock % BN == 0;
        if (blk * Epi::kKScaleBlock < K) { // a block wholly past K adds nothing
          float rs[kMt][2], cs[kNt][2];
#pragma unroll
          for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int64 row = m0 + wm * kWarpM + 16 * mt + lane / 4 + 8 * h;
              rs[mt][h] = epi.kscale_row(row < M ? row : M - 1, blk);
            }
#pragma unroll
          for (int nt = 0; nt < (kColUniform ? 1 : kNt); ++nt)
#pragma unroll
            for (int e = 0; e < (kColUniform ? 1 : 2); ++e) {
              const int64 col = n0 + (kColUniform ? 0 : wn * kWarpN + 8 * nt + 2 * (lane % 4) + e);
              cs[nt][e] = epi.kscale_col(col < N ? col : N - 1, blk);
            }
          each_acc([&](int mt, int nt, int r) {
            acc[mt][nt][r] = fmaf(part[mt][nt][r],
                                  rs[mt][r / 2] * (kColUniform ? cs[0][0] : cs[nt][r % 2]),
                                  acc[mt][nt][r]);
          });
        }
        each_acc([&](int mt, int nt, int r) { part[mt][nt][r] = 0.f; });
      }
    };
    // k-steps (32 bytes of K each) per scale block.
    constexpr int kStepsPerStage = BK / kMmaK;
    constexpr int kScaleSteps = [] {
      if constexpr (kKScale) {
        static_assert(Epi::kKScaleBlock % kMmaK == 0 && Epi::kKScaleBlock >= kMmaK,
                      "GemmSm80: the scale block must be a multiple of one 32-byte k-step");
        return Epi::kKScaleBlock / kMmaK;
      } else {
        return 1;
      }
    }();

#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < kBlocks)
        load(s, s);
      cp_async_commit(); // empty groups keep the count uniform
    }
    const int q = lane / 8; // the 8x8 matrix this lane addresses in ldmatrix.x4
    for (int kb = 0; kb < kBlocks; ++kb) {
      cp_async_wait<Stages - 2>();
      __syncthreads(); // k-block kb landed for all; stage (kb - 1) % Stages is free
      if (kb + Stages - 1 < kBlocks)
        load(kb + Stages - 1, (kb + Stages - 1) % Stages);
      cp_async_commit();

      const int s = kb % Stages;
      const uint32 sa = smem_addr(base + s * kStageBytes);
      const uint32 sb = sa + kStageBytesA;
#pragma unroll
      for (int kk = 0; kk < BK / kMmaK; ++kk) {
        uint32 af[kMt][4];
        uint32 bf[kNt][2];
        // A (m16 x k16): matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7),
        // (rows 0-7, k 8-15), (rows 8-15, k 8-15) = a0..a3 of mma.sync.
        // tf32 (m16 x k8): the same addresses, k in 4-element chunks.
#pragma unroll
        for (int mt = 0; mt < kMt; ++mt) {
          const int r = wm * kWarpM + 16 * mt + 8 * (q % 2) + lane % 8;
          ldmatrix_x4(af[mt], sa + swizzle128(r, 2 * kk + q / 2));
        }
        if constexpr (has_prologue_a<Epi>) { // A computed from its load (gemm_tiles.cuh)
          static_assert(!kF8, "GemmSm80: an A prologue needs 16-bit or f32 operands");
#pragma unroll
          for (int mt = 0; mt < kMt; ++mt)
            prologue_fragment<TIn>(epi, af[mt], m0 + wm * kWarpM + 16 * mt,
                                   kb * BK + kk * kMmaK, K, lane);
        }
#pragma unroll
        for (int np = 0; np < kNt / 2; ++np) {
          uint32 t[4];
          const int n = wn * kWarpN + 16 * np; // first column of this n16 pair
          if constexpr (BTransposed) {
            // rows n: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15)
            const int r = n + 8 * (q / 2) + lane % 8;
            ldmatrix_x4(t, sb + swizzle128(r, 2 * kk + q % 2));
          } else if constexpr (kTf32) {
            // b0 = B[k = 8 kk + lane % 4][n + lane / 4], b1 at k + 4, for the two
            // n8 tiles: one 4-byte load each (B panels are 32 columns wide).
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int c = n + 8 * h + lane / 4, k = 8 * kk + lane % 4;
              const uint32 p = sb + (c / 32) * (BK * 128) + (c % 4) * 4;
              t[2 * h] = lds32(p + swizzle128(k, (c % 32) / 4));
              t[2 * h + 1] = lds32(p + swizzle128(k + 4, (c % 32) / 4));
            }
          } else {
            // rows k, transposed: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), ...
            const int r = 16 * kk + 8 * (q % 2) + lane % 8;
            const int c = n / 8 + q / 2;
            ldmatrix_x4_trans(t, sb + (c / 8) * (BK * 128) + swizzle128(r, c % 8));
          }
          bf[2 * np][0] = t[0];
          bf[2 * np][1] = t[1];
          bf[2 * np + 1][0] = t[2];
          bf[2 * np + 1][1] = t[3];
        }
        if constexpr (kTf32) {
#pragma unroll
          for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
            for (int i = 0; i < 4; ++i)
              af[mt][i] = to_tf32(af[mt][i]);
#pragma unroll
          for (int nt = 0; nt < kNt; ++nt) {
            bf[nt][0] = to_tf32(bf[nt][0]);
            bf[nt][1] = to_tf32(bf[nt][1]);
          }
        }
        if constexpr (kF8) {
          mma_f8(dst, af, bf);
        } else {
#pragma unroll
          for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
            for (int nt = 0; nt < kNt; ++nt) {
              if constexpr (kTf32)
                mma_m16n8k8_tf32(dst[mt][nt], af[mt], bf[nt][0], bf[nt][1]);
              else
                mma_m16n8k16<TIn>(dst[mt][nt], af[mt], bf[nt][0], bf[nt][1]);
            }
        }
        if constexpr (kKScale && kScaleSteps < kStepsPerStage) // blocks inside a stage
          if ((kk + 1) % kScaleSteps == 0)
            promote((kb * kStepsPerStage + kk) / kScaleSteps);
      }
      if constexpr (kKScale && kScaleSteps >= kStepsPerStage) // blocks of whole stages
        if ((kb + 1) % (kScaleSteps / kStepsPerStage) == 0)
          promote((kb + 1) * kStepsPerStage / kScaleSteps - 1);
    }
    cp_async_wait<0>();
    if constexpr (kKScale) // the last block, when it ends inside a stage
      if ((kBlocks * kStepsPerStage) % kScaleSteps != 0)
        promote(kBlocks * kStepsPerStage / kScaleSteps);

    const int64 rowBase = static_cast<int64>(m0) + wm * kWarpM + lane / 4;
    const int64 colBase = static_cast<int64>(n0) + wn * kWarpN + 2 * (lane % 4);
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64 row = rowBase + 16 * mt + 8 * h;
          const int64 col = colBase + 8 * nt;
          constexpr float kScale = kF8 ? f8ProductScale<TIn> : 1.f;
          if (row < M && col < N)
            epi(row, col, acc[mt][nt][2 * h] * kScale, acc[mt][nt][2 * h + 1] * kScale);
        }
#endif
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  /// One k32 step of 8-bit operands: per 16-byte chunk h, the words widened to
  /// f16 fragments (see the top) and one mma.sync m16n8k16 per (mt, nt).
  __device__ static __forceinline__ void mma_f8(float (&acc)[kMt][kNt][4],
                                                const uint32 (&af)[kMt][4],
                                                const uint32 (&bf)[kNt][2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      uint32 a16[kMt][4], b16[kNt][2];
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt) {
        f8x4_to_f16x2<TIn>(af[mt][2 * h], a16[mt][0], a16[mt][2]);     // row g
        f8x4_to_f16x2<TIn>(af[mt][2 * h + 1], a16[mt][1], a16[mt][3]); // row g + 8
      }
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt)
        f8x4_to_f16x2<TIn>(bf[nt][h], b16[nt][0], b16[nt][1]);
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNt; ++nt)
          sm80::mma_m16n8k16<f16>(acc[mt][nt], a16[mt], b16[nt][0], b16[nt][1]);
    }
  }
#endif
};

/// The kernel of a GemmSm80 configuration G.
template <class G, class Epi>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocks)
    gemm_sm80_kernel(const typename G::In* a, const typename G::In* b, int M, int N, int K, int64 lda, int64 ldb,
                     int groupM, Epi epi) {
  extern __shared__ __align__(128) uint8 gemm_sm80_smem[];
  G::run(a, b, M, N, K, lda, ldb, groupM, epi, gemm_sm80_smem);
}

} // namespace helion::dev
