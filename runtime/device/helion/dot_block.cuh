// helion/dot_block.cuh: the shared-memory fallback of the general hl::dot
// (EmitDot.cpp, hd::BlockDot; included by dot.cuh), for kernels the mma layout
// does not take. Correct first, not fast.
//
//   C[M, N] = A[M, K] @ B[K, N]      (blocks of the emitter, any owner threads)
//
// How it runs. The emitter's threads write their elements of A and B into a
// shared-memory staging area (set_a / set_b; zero_padding fills the rows and
// columns past M, N, K up to the mma shape), a barrier, then mma(): every warp
// of the CTA takes 16 x 8 output fragments in turn and runs mma.sync over K,
// reading its fragments from shared memory with plain loads, and writes the f32
// fragment to C in shared memory; a barrier, then each thread reads its result
// elements (get_c). Operands are staged in the type the tensor cores read:
// bf16 (or f16) when both operands are bf16 (f16): m16n8k16; otherwise f32,
// rounded to the nearest tf32 at fragment load: m16n8k8 tf32 (bf16 and f16
// values are exact in tf32). Works on sm_80 and newer.
//
// Layout of the staging area (kBytes, 16-byte aligned): A as [Mp][kLda] of T,
// B as [Kp][kLdb] of T, C as [Mp][kLdc] floats; Mp, Np, Kp: M, N, K rounded up
// to the mma shape (16, 8, 16 or 8 for tf32); the leading dims are padded by 16
// bytes so that the 8 rows a fragment load touches fall in different banks.
#pragma once
#include "helion/gemm_sm80.cuh" // sm80::mma_m16n8k16, mma_m16n8k8_tf32, to_tf32
#include "helion/types.cuh"

namespace helion::dev {

/// The type a general dot stages its operands in (TA, TB: their storage types).
template <class TA, class TB> struct DotOperand {
  static_assert(!is_same_v<TA, double> && !is_same_v<TB, double>,
                "helionc: hl::dot of f64 blocks is not supported by the CUDA backend");
  using type = float;
};
template <> struct DotOperand<bf16, bf16> { using type = bf16; };
template <> struct DotOperand<f16, f16> { using type = f16; };

template <class TA, class TB, int M, int N, int K> struct BlockDot {
  using T = typename DotOperand<TA, TB>::type;
  static constexpr bool kTf32 = is_same_v<T, float>;
  static constexpr int kMmaK = kTf32 ? 8 : 16;
  static constexpr int Mp = (M + 15) / 16 * 16;
  static constexpr int Np = (N + 7) / 8 * 8;
  static constexpr int Kp = (K + kMmaK - 1) / kMmaK * kMmaK;
  static constexpr int kPad = 16 / static_cast<int>(sizeof(T)); ///< 16 bytes of T
  static constexpr int kLda = Kp + kPad, kLdb = Np + kPad, kLdc = Np + 4;
  static constexpr int kBytesA = Mp * kLda * static_cast<int>(sizeof(T));
  static constexpr int kBytesB = Kp * kLdb * static_cast<int>(sizeof(T));
  static constexpr int kBytes = kBytesA + kBytesB + Mp * kLdc * 4;

  __device__ static __forceinline__ T* a(uint8* smem) { return reinterpret_cast<T*>(smem); }
  __device__ static __forceinline__ T* b(uint8* smem) {
    return reinterpret_cast<T*>(smem + kBytesA);
  }
  __device__ static __forceinline__ float* c(uint8* smem) {
    return reinterpret_cast<float*>(smem + kBytesA + kBytesB);
  }

  template <class V> __device__ static __forceinline__ void set_a(uint8* smem, int m, int k, V v) {
    a(smem)[m * kLda + k] = from_compute<T>(static_cast<float>(v));
  }
  template <class V> __device__ static __forceinline__ void set_b(uint8* smem, int k, int n, V v) {
    b(smem)[k * kLdb + n] = from_compute<T>(static_cast<float>(v));
  }
  __device__ static __forceinline__ float get_c(const uint8* smem, int m, int n) {
    return reinterpret_cast<const float*>(smem + kBytesA + kBytesB)[m * kLdc + n];
  }

  /// Zeros A's rows past M and columns past K, and B's rows past K and columns
  /// past N (up to Mp, Kp, Np), which no thread's elements cover.
  __device__ static void zero_padding(uint8* smem, int tid, int nt) {
    if constexpr (Mp != M || Kp != K)
      for (int i = tid; i < Mp * Kp; i += nt)
        if (i / Kp >= M || i % Kp >= K)
          a(smem)[(i / Kp) * kLda + i % Kp] = from_compute<T>(0.f);
    if constexpr (Kp != K || Np != N)
      for (int i = tid; i < Kp * Np; i += nt)
        if (i / Np >= K || i % Np >= N)
          b(smem)[(i / Np) * kLdb + i % Np] = from_compute<T>(0.f);
  }

  /// C = A @ B on the tensor cores; every thread of the CTA (nt of them, whole
  /// warps) calls it between two barriers.
  __device__ static void mma(uint8* smem, int tid, int nt) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const T* sa = a(smem);
    const T* sb = b(smem);
    float* sc = c(smem);
    const int lane = tid % 32, warp = tid / 32, warps = nt / 32;
    const int g = lane / 4, t = lane % 4;
    for (int f = warp; f < (Mp / 16) * (Np / 8); f += warps) {
      const int m0 = (f / (Np / 8)) * 16, n0 = (f % (Np / 8)) * 8;
      float d[4] = {0.f, 0.f, 0.f, 0.f};
      for (int k0 = 0; k0 < Kp; k0 += kMmaK) {
        uint32 af[4], b0, b1;
        if constexpr (kTf32) {
          // a0 (row g, k t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); b0 (k t,
          // col g), b1 (t + 4, g).
          const float* ra = sa + (m0 + g) * kLda + k0 + t;
          af[0] = sm80::to_tf32(__float_as_uint(ra[0]));
          af[1] = sm80::to_tf32(__float_as_uint(ra[8 * kLda]));
          af[2] = sm80::to_tf32(__float_as_uint(ra[4]));
          af[3] = sm80::to_tf32(__float_as_uint(ra[8 * kLda + 4]));
          b0 = sm80::to_tf32(__float_as_uint(sb[(k0 + t) * kLdb + n0 + g]));
          b1 = sm80::to_tf32(__float_as_uint(sb[(k0 + t + 4) * kLdb + n0 + g]));
          sm80::mma_m16n8k8_tf32(d, af, b0, b1);
        } else {
          // a0 (row g, k 2t..2t+1), a1 (g + 8), a2 (k + 8), a3 (g + 8, k + 8): pairs
          // adjacent in a row; b0 (k 2t..2t+1, col g), b1 (k + 8): a column pair.
          const T* ra = sa + (m0 + g) * kLda + k0 + 2 * t;
          af[0] = *reinterpret_cast<const uint32*>(ra);
          af[1] = *reinterpret_cast<const uint32*>(ra + 8 * kLda);
          af[2] = *reinterpret_cast<const uint32*>(ra + 8);
          af[3] = *reinterpret_cast<const uint32*>(ra + 8 * kLda + 8);
          const T* rb = sb + (k0 + 2 * t) * kLdb + n0 + g;
          b0 = uint32(rb[0].bits) | (uint32(rb[kLdb].bits) << 16);
          b1 = uint32(rb[8 * kLdb].bits) | (uint32(rb[9 * kLdb].bits) << 16);
          sm80::mma_m16n8k16<T>(d, af, b0, b1);
        }
      }
      // d0, d1: row g, columns 2t, 2t + 1; d2, d3: row g + 8.
      float* rc = sc + (m0 + g) * kLdc + n0 + 2 * t;
      rc[0] = d[0];
      rc[1] = d[1];
      rc[8 * kLdc] = d[2];
      rc[8 * kLdc + 1] = d[3];
    }
#endif
  }
};

} // namespace helion::dev
