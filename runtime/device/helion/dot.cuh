// helion/dot.cuh: the general hl::dot of the CUDA emitter, for dots the matmul
// and attention templates do not match (a dot of computed blocks, two chained
// dots, a dot inside a generic kernel's loops): hd::MmaDot, the mma layout
// (EmitMmaDot.cpp; below), and hd::BlockDot, the shared-memory fallback
// (EmitDot.cpp; dot_block.cuh).
#pragma once
#include "helion/async.cuh"              // cp_async_zfill
#include "helion/attention_sm90_ops.cuh" // sm90::wgmma_m64k16_rs
#include "helion/dot_block.cuh"          // DotOperand, BlockDot
#include "helion/gemm_sm80.cuh"          // sm80::mma_m16n8k16, mma_m16n8k8_tf32, to_tf32
#include "helion/gemm_sm90_pipeline.cuh" // sm90::wgmma_m64k16, desc_sw128, wgmma fences
#include "helion/types.cuh"

namespace helion::dev {

/// The mma layout of the general dot (EmitMmaDot.cpp): the emitter lays out the
/// dots' results in registers as mma.sync accumulators, so a dot runs on register
/// fragments instead of through a shared-memory result.
///
///   row axis (M):    thread bits 2.. (th = tid / 4, TM = NT / 4 threads), element i
///                    at row i * TM + th: fragment f of warp w takes rows
///                    (2f) * TM + 8w + g and (2f + 1) * TM + 8w + g (g = lane / 4);
///   column axis (N): thread bits 0-1 (t = lane % 4) in pairs: element i at column
///                    (i / 2) * 8 + 2t + i % 2, the accumulator's columns.
///
/// A K axis laid out as a column axis is the A fragment's k layout, so the result
/// of one dot (after pointwise code) is the A operand of the next without leaving
/// registers. Operands that are tensor loads are copied into shared memory by all
/// threads and read as fragments with ldmatrix (A row-major, B [K, N] transposed
/// by ldmatrix.trans); tf32 (f32 or mixed operands) reads them with plain loads.
/// In tf32 the k order inside each 8-wide step is permuted (mma k t <-> 2t,
/// t + 4 <-> 2t + 1) the same way for A and B, which leaves the sum unchanged.
///
/// Shared memory: A as [M][kLda] (when staged), B as [Kp][kLdb] of T (B_NK: as
/// [N][kLdb], a B read from a [N, K] tensor through .transpose: its rows then copy
/// as vectors, and ldmatrix without .trans gives its fragments), rows padded
/// by 16 bytes so that the 8 rows of an ldmatrix phase fall in distinct banks.
///
/// On sm_90a (kWgmma: 16-bit operands, whole warpgroups, an N wgmma takes) each
/// warpgroup runs the dot as wgmma m64nNk16 instead, from shared memory through
/// descriptors (A in registers: the register-A form), into the same registers:
/// fragment f of warp w (rows (2f + h) * TM + 8w + g) is rows 16 (w % 4) + 8h + g of
/// the wgmma of fragment f and warpgroup w / 4, whose accumulator layout is the
/// mma.sync one. The operands are then laid out as wgmma reads them:
///   A (and a B_NK B): K-major without swizzle, 8 x 16-byte core matrices of 128
///     contiguous bytes, the K neighbours 128 bytes apart (LBO), the 8-row groups
///     Kp * 16 bytes apart (SBO); A's rows in the order the wgmmas take them
///     (group (f * warpgroups + w / 4) * 8 + 2 (w % 4) + h for logical rows
///     (2f + h) * TM + 8w .. + 7);
///   B [K, N]: N-major with the 128-byte swizzle, as 64-column blocks of Kp rows
///     of 128 bytes (LBO = Kp * 128 between blocks, SBO = 1024 between 8-row
///     groups; the 16-byte chunk c of row k at c ^ (k % 8)); 1024-byte aligned.
/// The writers of the operands call publish() (a proxy fence: wgmma reads shared
/// memory through the async proxy) before the barrier that precedes the dot.
template <class TA, class TB, int M, int N, int K, int NT, bool A_STAGED, bool B_NK = false,
          int REGS = 255>
struct MmaDot {
  using T = typename DotOperand<TA, TB>::type;
  static constexpr bool kTf32 = is_same_v<T, float>;
  static constexpr int kMmaK = kTf32 ? 8 : 16;
  static constexpr int kKPerThread = kMmaK / 4; ///< a row's A elements per thread and k step
  static constexpr int TM = NT / 4;             ///< threads of the row axis
  static_assert(M % (2 * TM) == 0, "helionc: the row tile of an mma dot is 16 rows per warp");
  static_assert(N % 8 == 0, "helionc: the column tile of an mma dot is a multiple of 8");
  static constexpr int Kp = (K + 15) / 16 * 16;
  static constexpr int kKSteps = Kp / kMmaK;
  static constexpr int kPad = 16 / static_cast<int>(sizeof(T));
  static constexpr int kLda = Kp + kPad, kLdb = (B_NK ? Kp : N) + kPad;
  static constexpr int kWarpGroups = NT / 128;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static constexpr bool kSm90a = true;
#else
  static constexpr bool kSm90a = false;
#endif
  /// The wgmma form (see above): N must be one wgmma takes (an N-major B in whole
  /// 64-column swizzle blocks), and a thread's REGS registers (its cap from launch
  /// bounds or maxnreg) must hold the accumulators of its fragments at once and some
  /// 32 more (ptxas refuses a wgmma it cannot allocate, C7602).
  static constexpr bool kWgmmaN =
      B_NK ? (N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 192 || N == 256)
           : (N % 64 == 0 && N <= 256);
  static constexpr bool kWgmma = kSm90a && !kTf32 && NT % 128 == 0 && kWgmmaN &&
                                 M / (NT / 2) * (N / 2) + 32 <= REGS;
  static constexpr int kSboK = Kp * 16; ///< wgmma K-major: bytes between 8-row groups
  static constexpr int align1k(int x) { return kWgmma ? (x + 1023) / 1024 * 1024 : x; }
  static constexpr int kBytesA =
      align1k(A_STAGED ? M * kLda * static_cast<int>(sizeof(T)) : 0);
  static constexpr int kBytes =
      align1k(kBytesA + (B_NK ? N : Kp) * kLdb * static_cast<int>(sizeof(T)));

  __device__ static __forceinline__ T* a(uint8* smem) { return reinterpret_cast<T*>(smem); }
  __device__ static __forceinline__ T* b(uint8* smem) {
    return reinterpret_cast<T*>(smem + kBytesA);
  }
  /// Where A[m][k] is (elements from a()).
  __device__ static __forceinline__ int a_at(int m, int k) {
    if constexpr (kWgmma) {
      constexpr int W = NT / 32;
      const int g8 = m / 8, w = g8 % W, fh = g8 / W;
      const int group = ((fh / 2) * kWarpGroups + w / 4) * 8 + 2 * (w % 4) + fh % 2;
      return (group * kSboK + (k / 8) * 128 + (m % 8) * 16) / 2 + k % 8;
    } else {
      return m * kLda + k;
    }
  }
  /// Where B[k][n] is (elements from b()).
  __device__ static __forceinline__ int b_at(int k, int n) {
    if constexpr (kWgmma && B_NK) {
      return ((n / 8) * kSboK + (k / 8) * 128 + (n % 8) * 16) / 2 + k % 8;
    } else if constexpr (kWgmma) {
      return ((n / 64) * (Kp * 128) + k * 128 + (((n % 64) / 8) ^ (k % 8)) * 16) / 2 + n % 8;
    } else {
      return B_NK ? n * kLdb + k : k * kLdb + n;
    }
  }
  /// Writes a vector of loaded elements at A[m][k..] / B[k][n..].
  template <class S, int n>
  __device__ static __forceinline__ void put_a(uint8* smem, int m, int k, const S (&v)[n]) {
    put(a(smem) + a_at(m, k), v);
  }
  template <class S, int n>
  __device__ static __forceinline__ void put_b(uint8* smem, int k, int n0, const S (&v)[n]) {
    static_assert(!B_NK, "put_b writes B[k][n..]");
    put(b(smem) + b_at(k, n0), v);
  }
  /// Copies VA elements of a loaded operand from global `src` (zeros when !pred) to
  /// A[m][k..] / B[k][n..]: with ASYNC and the staged type a cp.async of 4, 8 or 16
  /// bytes (completed by the caller's wait_group and barrier), else a load and a
  /// store. TRANS: the VA elements run down the rows (A[m..][k], B[k..][n]), the
  /// operand being a transposed view of the tensor.
  template <int VA, bool ASYNC, bool TRANS, class S>
  __device__ static __forceinline__ void copy_a(uint8* smem, int m, int k, const S* src, bool pred) {
    copy<VA, ASYNC, TRANS, S>(a(smem), [=](int i) { return TRANS ? a_at(m + i, k) : a_at(m, k) + i; },
                              src, pred);
  }
  template <int VA, bool ASYNC, bool TRANS, class S>
  __device__ static __forceinline__ void copy_b(uint8* smem, int k, int n, const S* src, bool pred) {
    // B_NK: a transposed view's vectors run along k, a row of the [N][K] layout.
    copy<VA, ASYNC, TRANS && !B_NK, S>(
        b(smem), [=](int i) { return TRANS && !B_NK ? b_at(k + i, n) : b_at(k, n) + i; }, src,
        pred);
  }
  /// One element at A[m][k] / B[k][n] (an operand whose contiguous dim is the other one).
  template <class V> __device__ static __forceinline__ void put_a1(uint8* smem, int m, int k, V v) {
    a(smem)[a_at(m, k)] = from_compute<T>(static_cast<float>(to_compute(v)));
  }
  template <class V> __device__ static __forceinline__ void put_b1(uint8* smem, int k, int n, V v) {
    b(smem)[b_at(k, n)] = from_compute<T>(static_cast<float>(to_compute(v)));
  }
  /// Called by every writer of the operands before the barrier that precedes the
  /// dot: on the wgmma form, orders its shared-memory writes (stores, completed
  /// cp.async) before the wgmma's reads, which go through the async proxy.
  __device__ static __forceinline__ void publish() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (kWgmma)
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
  }

  /// Zeros A's columns and B's rows past K up to the k step (operands written by
  /// their owners cover the tile only; copied loads write the zeros themselves).
  __device__ static __forceinline__ void zero_padding(uint8* smem, int tid) {
    if constexpr (Kp != K) {
      constexpr int P = Kp - K;
      if constexpr (A_STAGED)
        for (int i = tid; i < M * P; i += NT)
          a(smem)[a_at(i / P, K + i % P)] = from_compute<T>(0.f);
      for (int i = tid; i < P * N; i += NT)
        b(smem)[b_at(K + i / N, i % N)] = from_compute<T>(0.f);
    }
  }
  /// A's fragment of k step ks for this warp's fragment rows (row0: the first of
  /// the 8 rows of the upper half, row1: of the lower half).
  __device__ static __forceinline__ void load_a(uint32 (&af)[4], uint8* smem, int row0, int row1,
                                                int ks, int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const T* sa = a(smem);
    if constexpr (kTf32) {
      const int g = lane / 4, t = lane % 4, k = ks * 8 + 2 * t;
      const float2 lo = *reinterpret_cast<const float2*>(sa + (row0 + g) * kLda + k);
      const float2 hi = *reinterpret_cast<const float2*>(sa + (row1 + g) * kLda + k);
      af[0] = sm80::to_tf32(__float_as_uint(lo.x));
      af[1] = sm80::to_tf32(__float_as_uint(hi.x));
      af[2] = sm80::to_tf32(__float_as_uint(lo.y));
      af[3] = sm80::to_tf32(__float_as_uint(hi.y));
    } else {
      // Lanes 0-7: rows of the upper half, k 0-7; 8-15: lower half; 16-31: k 8-15.
      const int r = ((lane / 8) % 2 ? row1 : row0) + lane % 8;
      const T* p = sa + r * kLda + ks * 16 + (lane / 16) * 8;
      sm80::ldmatrix_x4(af, static_cast<uint32>(__cvta_generic_to_shared(p)));
    }
#endif
  }
  /// The A fragment of a k step from registers: e[h][j] is the element of row half h
  /// and this thread's j-th column of the step (the column axis's layout).
  __device__ static __forceinline__ void pack_a(uint32 (&af)[4], const float (&e)[2][kKPerThread]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (kTf32) {
      af[0] = sm80::to_tf32(__float_as_uint(e[0][0]));
      af[1] = sm80::to_tf32(__float_as_uint(e[1][0]));
      af[2] = sm80::to_tf32(__float_as_uint(e[0][1]));
      af[3] = sm80::to_tf32(__float_as_uint(e[1][1]));
    } else {
      af[0] = pack(e[0][0], e[0][1]);
      af[1] = pack(e[1][0], e[1][1]);
      af[2] = pack(e[0][2], e[0][3]);
      af[3] = pack(e[1][2], e[1][3]);
    }
#endif
  }
  /// B's fragments of k step ks for the 8 columns at n0 (and, for load_b2, n0 + 8).
  __device__ static __forceinline__ void load_b(uint32 (&bf)[2], uint8* smem, int ks, int n0,
                                                int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const T* sb = b(smem);
    if constexpr (kTf32) {
      const int g = lane / 4, t = lane % 4, k = ks * 8 + 2 * t;
      bf[0] = sm80::to_tf32(__float_as_uint(sb[b_at(k, n0 + g)]));
      bf[1] = sm80::to_tf32(__float_as_uint(sb[b_at(k + 1, n0 + g)]));
    } else if constexpr (B_NK) {
      // Rows n0.. of [N][K]: matrices k 0-7 (b0) and 8-15 (b1), no transpose.
      const T* p = sb + (n0 + lane % 8) * kLdb + ks * 16 + (lane / 8) % 2 * 8;
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                   : "=r"(bf[0]), "=r"(bf[1])
                   : "r"(static_cast<uint32>(__cvta_generic_to_shared(p))));
    } else {
      const T* p = sb + (ks * 16 + lane % 16) * kLdb + n0;
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                   : "=r"(bf[0]), "=r"(bf[1])
                   : "r"(static_cast<uint32>(__cvta_generic_to_shared(p))));
    }
#endif
  }
  __device__ static __forceinline__ void load_b2(uint32 (&bf)[4], uint8* smem, int ks, int n0,
                                                 int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (kTf32) {
      uint32 lo[2], hi[2];
      load_b(lo, smem, ks, n0, lane);
      load_b(hi, smem, ks, n0 + 8, lane);
      bf[0] = lo[0], bf[1] = lo[1], bf[2] = hi[0], bf[3] = hi[1];
    } else {
      // Matrices: k 0-7 and 8-15 at n0 (b0, b1), then at n0 + 8.
      if constexpr (B_NK) {
        // Matrices: rows n0..n0+7 at k 0-7, 8-15, then rows n0+8.. (b0, b1 of each).
        const T* p = b(smem) + (n0 + lane % 8 + lane / 16 * 8) * kLdb + ks * 16 + (lane / 8) % 2 * 8;
        sm80::ldmatrix_x4(bf, static_cast<uint32>(__cvta_generic_to_shared(p)));
      } else {
        const T* p = b(smem) + (ks * 16 + lane % 16) * kLdb + n0 + (lane / 16) * 8;
        sm80::ldmatrix_x4_trans(bf, static_cast<uint32>(__cvta_generic_to_shared(p)));
      }
    }
#endif
  }
  /// (d0, d1) row g, columns 2t, 2t + 1; (d2, d3) row g + 8: += A fragment x B fragment.
  __device__ static __forceinline__ void mma(float& d0, float& d1, float& d2, float& d3,
                                             const uint32 (&af)[4], uint32 b0, uint32 b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    float d[4] = {d0, d1, d2, d3};
    if constexpr (kTf32)
      sm80::mma_m16n8k8_tf32(d, af, b0, b1);
    else
      sm80::mma_m16n8k16<T>(d, af, b0, b1);
    d0 = d[0], d1 = d[1], d2 = d[2], d3 = d[3];
#endif
  }

  /// The wgmma form of the dot: d[f] is fragment f's accumulator in the wgmma
  /// register order (d[f][4j + 2h + c]: row half h, column 8j + 2t + c); A from
  /// shared memory (af null) or af[ks][f] (A_STAGED false: the register A
  /// fragments of k step ks). Issues every k step, then waits for all of them.
  template <int F>
  __device__ static __forceinline__ void wgmma(float (&d)[F][N / 2], uint8* smem,
                                               uint32 (*af)[F][4] = nullptr) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (kWgmma) {
      const int wg = static_cast<int>(threadIdx.x) / 128;
      const uint32 sa = smem_addr(a(smem)) + wg * 8 * kSboK;
      const uint32 sb = smem_addr(b(smem));
      const uint64 descB = B_NK ? desc_k(sb) : sm90::desc_sw128(sb, Kp * 128, 1024);
#pragma unroll
      for (int f = 0; f < F; ++f)
#pragma unroll
        for (int i = 0; i < N / 2; ++i)
          sm90::fence_operand(d[f][i]);
      sm90::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kKSteps; ++ks) {
        const uint64 stepB = B_NK ? (ks * 256) >> 4 : (ks * 2048) >> 4;
#pragma unroll
        for (int f = 0; f < F; ++f) {
          if constexpr (A_STAGED) {
            const uint64 descA = desc_k(sa + f * kWarpGroups * 8 * kSboK + ks * 256);
            sm90::wgmma_m64k16<N, B_NK ? 0 : 1, T>(d[f], descA, descB + stepB, 1);
          } else {
            sm90::wgmma_m64k16_rs<N, T, B_NK ? 0 : 1>(d[f], af[ks][f], descB + stepB, 1);
          }
        }
      }
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int f = 0; f < F; ++f)
#pragma unroll
        for (int i = 0; i < N / 2; ++i)
          sm90::fence_operand(d[f][i]);
    }
#endif
  }

private:
  /// A K-major operand without swizzle (see above): LBO 128, SBO kSboK.
  __device__ static __forceinline__ uint64 desc_k(uint32 addr) {
    return static_cast<uint64>((addr & 0x3FFFF) >> 4) | (static_cast<uint64>(128 >> 4) << 16) |
           (static_cast<uint64>(kSboK >> 4) << 32);
  }
  __device__ static __forceinline__ uint32 pack(float lo, float hi) {
    return uint32(from_compute<T>(lo).bits) | (uint32(from_compute<T>(hi).bits) << 16);
  }
  /// at(i): where the i-th of the VA elements goes (elements from base).
  template <int VA, bool ASYNC, bool TRANS, class S, class At>
  __device__ static __forceinline__ void copy(T* base, At at, const S* src, bool pred) {
    constexpr int kVecBytes = VA * static_cast<int>(sizeof(T));
    if constexpr (ASYNC && !TRANS && is_same_v<S, T> &&
                  (kVecBytes == 4 || kVecBytes == 8 || kVecBytes == 16)) {
      cp_async_zfill<kVecBytes>(base + at(0), src, pred ? kVecBytes : 0);
    } else {
      struct alignas(VA * sizeof(S)) L { S v[VA]; };
      const L l = pred ? *reinterpret_cast<const L*>(src) : L{};
      if constexpr (TRANS) {
#pragma unroll
        for (int i = 0; i < VA; ++i)
          base[at(i)] = from_compute<T>(static_cast<float>(to_compute(l.v[i])));
      } else {
        put(base + at(0), l.v);
      }
    }
  }
  template <class S, int n> __device__ static __forceinline__ void put(T* dst, const S (&v)[n]) {
    if constexpr (is_same_v<S, T> && n * sizeof(T) % 4 == 0) {
      // Rows are 16-byte aligned and the column a multiple of n: one store.
      struct alignas(n * sizeof(T)) W { T v[n]; };
      W w;
#pragma unroll
      for (int i = 0; i < n; ++i)
        w.v[i] = v[i];
      *reinterpret_cast<W*>(dst) = w;
    } else {
#pragma unroll
      for (int i = 0; i < n; ++i)
        dst[i] = from_compute<T>(static_cast<float>(to_compute(v[i])));
    }
  }
};

} // namespace helion::dev
