// helion/attention_sm80.cuh: flash-attention forward on mma.sync (sm_80+, runs on sm_90).
//
//   out[b, i, :] = epi( sum_j p[i, j] v[b, j, :],  l[i] = sum_j p[i, j],  m[i] )
//   p[i, j] = exp(s[i, j] - m[i]),  s[i, j] = score(q[b, i, :] . k[b, j, :]),  m[i] = max_j s[i, j]
//
// computed FlashAttention-2 style: one CTA per (b, BM rows of q), a loop over
// BN-row blocks of k and v with an online softmax (running max m, running sum l,
// the output accumulator rescaled by exp(m_old - m_new) whenever the max grows).
//
// How it runs. Warps * 32 threads; warp w owns rows [16 * MT * w, 16 * MT * (w + 1))
// of the q tile (MT m16 tiles). Q, K and V tiles live in shared memory as D / 64
// panels of 128-byte rows (chunk-xor swizzle, as gemm_sm80.cuh), filled with
// cp.async, zero past M and N. Per k/v block j (FlashAttention-2's schedule):
//
//   wait K[j]; sync; issue V[j]      S = Q K[j]^T (ldmatrix Q, K; mma m16n8k16)
//   wait V[j]; sync; issue K[j + 1]  softmax of S in registers; O += P V[j]
//
// so V[j] streams in under Q K^T and K[j + 1] under the softmax and P V. The S
// accumulator fragment (rows lane / 4 and + 8, columns 2 * (lane % 4) + {0, 1} of
// each n8 tile) is, after conversion to TIn, exactly the A fragment of the next
// mma (k = the key index), so P never leaves registers. Row max and sum: each
// thread holds 2 * BN / 8 columns of 2 rows per m16 tile; the max is combined over
// the 4 threads of a quad (shuffles) every block, the sum only at the end.
//
// Columns past N (last block) get s = -inf. exp runs as ex2.approx on
// (s - m) * log2(e) with the row max subtracted in the FMA; a row whose scores are
// all -inf so far uses 0 as its max (no inf - inf).
//
// Template parameters of AttentionSm80<...>:
//   TIn    bf16 or f16 (q, k, v)
//   D      head dim, 64 or 128 (a multiple of 64: whole 128-byte rows)
//   BN     keys per block: 32, 64 or 128
//   Warps  4 or 8
//   MT     m16 tiles per warp, 1 or 2: BM = 16 * MT * Warps rows of q per CTA
//
// Functors: `float score(float x, int64 row, int64 col)` maps q . k of query row `row`
// and key `col` to s (e.g. x * scale, or -inf above the diagonal); `Score::kCausal`
// (true when score is -inf wherever col > row) lets a CTA stop at the diagonal's key
// block, and the CTAs take their row blocks last first (the longest first). Epilogue
// `epi(int64 b, int64 row, int64 col, float o0, float o1, float l, float m)` for
// each pair of adjacent head-dim columns (col even) of each row < M a thread owns,
// with o = sum_j p v (unnormalized), l = sum_j p, m = max_j s.
//
// Host requirements: q, k, v 16-byte aligned with unit inner stride and row (seq)
// and batch strides multiples of 8 elements; block kThreads, dynamic shared
// memory kSmemBytes (raise the limit past 48 KB), grid gridSize(M, B) (flat: the
// b-major order of (b, m-block), so CTAs reading one k/v run together).
#pragma once
#include "helion/async.cuh"
#include "helion/gemm_sm80.cuh"
#include "helion/math.cuh" // pack2_rn, ex2_approx
#include "helion/types.cuh"

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace sm80 {


} // namespace sm80
#endif

template <class TIn, int D, int BN = 64, int Warps = 4, int MT = 2>
struct AttentionSm80 {
  static_assert(is_same_v<TIn, bf16> || is_same_v<TIn, f16>, "AttentionSm80: bf16 or f16");
  static_assert(D == 64 || D == 128, "AttentionSm80: head dim 64 or 128");
  static_assert(BN == 32 || BN == 64 || BN == 128, "AttentionSm80: BN 32, 64 or 128");
  static_assert(Warps == 4 || Warps == 8, "AttentionSm80: 4 or 8 warps");
  static_assert(MT == 1 || MT == 2, "AttentionSm80: 1 or 2 m16 tiles per warp");

  static constexpr int kThreads = 32 * Warps;
  static constexpr int BM = 16 * MT * Warps;
  static constexpr int kChunks = D / 8;   ///< 16-byte chunks per row
  static constexpr int kBytesQ = BM * D * 2, kBytesKV = BN * D * 2;
  static constexpr int kSmemBytes = 128 + kBytesQ + 2 * kBytesKV; ///< 128: alignment slack
  static_assert(kThreads % kChunks == 0 && (kThreads / kChunks) % 8 == 0 &&
                    BN % (kThreads / kChunks) == 0,
                "AttentionSm80: tiles do not split evenly over the threads");

  __host__ __device__ static constexpr int mBlocks(int M) { return (M + BM - 1) / BM; }
  __host__ __device__ static constexpr int gridSize(int M, int B) { return mBlocks(M) * B; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  /// Byte offset of element (row, col) (col a multiple of 8) in a `rows`-row tile.
  __device__ static __forceinline__ uint32 at(int rows, int row, int chunk) {
    return (chunk / 8) * rows * 128 + sm80::swizzle128(row, chunk % 8);
  }

  /// cp.async of rows [0, Rows) of a [*, D] row-major block at `src` (row stride
  /// `ld`) into the tile at shared address `dst`; rows >= `valid` are zero-filled.
  template <int Rows>
  __device__ static __forceinline__ void copy(uint32 dst, const TIn* src, int64 ld, int valid) {
    constexpr int kStep = kThreads / kChunks;
    const int c = threadIdx.x % kChunks, r0 = threadIdx.x / kChunks;
    const uint32 d0 = at(Rows, r0, c);
#pragma unroll
    for (int i = 0; i < Rows / kStep; ++i) {
      const int r = r0 + i * kStep;
      const bool ok = r < valid;
      sm80::cp_async_zfill_s(dst + d0 + i * kStep * 128, ok ? src + r * ld + 8 * c : src,
                             ok ? 16 : 0);
    }
  }
#endif

  /// Key blocks a CTA of rows [m0, m0 + BM) reads: all of them, or with a causal
  /// score those up to the diagonal (keys < m0 + BM).
  template <class Score> __device__ static int keyBlocks(int m0, int N) {
    const int all = (N + BN - 1) / BN;
    return Score::kCausal ? min(all, (m0 + BM + BN - 1) / BN) : all;
  }

  template <class Score, class Epi>
  __device__ static void run(const TIn* q, const TIn* k, const TIn* v, int M, int N, int64 sqb,
                             int64 sqm, int64 skb, int64 skn, int64 svb, int64 svn,
                             const Score& score, const Epi& epi, void* smem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using namespace sm80;
    uint8* base = reinterpret_cast<uint8*>((reinterpret_cast<uint64>(smem) + 127) & ~127ull);
    // Causal: row block mb needs keys [0, (mb + 1) BM) only; the longest go first.
    const int mb = Score::kCausal ? mBlocks(M) - 1 - blockIdx.x % mBlocks(M)
                                  : blockIdx.x % mBlocks(M);
    const int64 b = blockIdx.x / mBlocks(M);
    const int m0 = mb * BM;
    q += b * sqb + m0 * sqm;
    k += b * skb;
    v += b * svb;
    const uint32 sQ = smem_addr(base), sK = sQ + kBytesQ, sV = sK + kBytesKV;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, quad = lane / 8;
    constexpr float kLog2e = 1.4426950408889634f;
    const float kNegInf = -__int_as_float(0x7f800000);

    copy<BM>(sQ, q, sqm, M - m0);
    copy<BN>(sK, k, skn, N);
    cp_async_commit();

    float o[MT][D / 8][4];
    float rowMax[MT][2], rowSum[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        rowMax[mt][h] = kNegInf;
        rowSum[mt][h] = 0.f;
      }
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          o[mt][dt][r] = 0.f;
    }

    const int nBlocks = keyBlocks<Score>(m0, N);
    for (int j = 0; j < nBlocks; ++j) {
      const int n0 = j * BN;
      cp_async_wait<0>();
      __syncthreads(); // K[j] (and Q) landed; every warp is done with V[j - 1]
      copy<BN>(sV, v + n0 * svn, svn, N - n0);
      cp_async_commit();

      // S = Q K^T: A = Q rows (ldmatrix), B = K rows as [n, k] (ldmatrix, no .trans).
      float s[MT][BN / 8][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < BN / 8; ++nt)
#pragma unroll
          for (int r = 0; r < 4; ++r)
            s[mt][nt][r] = 0.f;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        uint32 a[MT][4];
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          const int r = (warp * MT + mt) * 16 + 8 * (quad % 2) + lane % 8;
          ldmatrix_x4(a[mt], sQ + at(BM, r, 2 * kk + quad / 2));
        }
#pragma unroll
        for (int np = 0; np < BN / 16; ++np) {
          uint32 t[4];
          ldmatrix_x4(t, sK + at(BN, 16 * np + 8 * (quad / 2) + lane % 8, 2 * kk + quad % 2));
#pragma unroll
          for (int mt = 0; mt < MT; ++mt) {
            mma_m16n8k16<TIn>(s[mt][2 * np], a[mt], t[0], t[1]);
            mma_m16n8k16<TIn>(s[mt][2 * np + 1], a[mt], t[2], t[3]);
          }
        }
      }
      cp_async_wait<0>();
      __syncthreads(); // V[j] landed; every warp is done with K[j]
      if (j + 1 < nBlocks)
        copy<BN>(sK, k + (n0 + BN) * skn, skn, N - n0 - BN);
      cp_async_commit();

      // Online softmax, per row half h (rows lane / 4 and lane / 4 + 8 of each m16 tile).
      const bool edge = n0 + BN > N;
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float mx = rowMax[mt][h];
#pragma unroll
          for (int nt = 0; nt < BN / 8; ++nt)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int col = n0 + 8 * nt + 2 * (lane % 4) + e;
              float x = score(s[mt][nt][2 * h + e],
                              static_cast<int64>(m0 + (warp * MT + mt) * 16 + lane / 4 + 8 * h),
                              static_cast<int64>(col));
              if (edge && col >= N)
                x = kNegInf;
              s[mt][nt][2 * h + e] = x;
              mx = fmaxf(mx, x);
            }
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
          const float ms = mx == kNegInf ? 0.f : mx * kLog2e;
          const float alpha = ex2_approx(rowMax[mt][h] * kLog2e - ms);
          rowMax[mt][h] = mx;
          float sum = 0.f;
#pragma unroll
          for (int nt = 0; nt < BN / 8; ++nt)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const float p = ex2_approx(__fmaf_rn(s[mt][nt][2 * h + e], kLog2e, -ms));
              s[mt][nt][2 * h + e] = p;
              sum += p;
            }
          rowSum[mt][h] = rowSum[mt][h] * alpha + sum;
#pragma unroll
          for (int dt = 0; dt < D / 8; ++dt) {
            o[mt][dt][2 * h] *= alpha;
            o[mt][dt][2 * h + 1] *= alpha;
          }
        }

      // O += P V: A = P from the S fragments (k16 = n tiles 2 kk, 2 kk + 1),
      // B = V rows as [k, n] (ldmatrix.trans).
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk) {
        uint32 a[MT][4];
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          a[mt][0] = pack2_rn<TIn>(s[mt][2 * kk][0], s[mt][2 * kk][1]);
          a[mt][1] = pack2_rn<TIn>(s[mt][2 * kk][2], s[mt][2 * kk][3]);
          a[mt][2] = pack2_rn<TIn>(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
          a[mt][3] = pack2_rn<TIn>(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
        }
#pragma unroll
        for (int np = 0; np < D / 16; ++np) {
          uint32 t[4];
          ldmatrix_x4_trans(t, sV + at(BN, 16 * kk + 8 * (quad % 2) + lane % 8, 2 * np + quad / 2));
#pragma unroll
          for (int mt = 0; mt < MT; ++mt) {
            mma_m16n8k16<TIn>(o[mt][2 * np], a[mt], t[0], t[1]);
            mma_m16n8k16<TIn>(o[mt][2 * np + 1], a[mt], t[2], t[3]);
          }
        }
      }
    }
    cp_async_wait<0>();

#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float l = rowSum[mt][h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const int row = m0 + (warp * MT + mt) * 16 + lane / 4 + 8 * h;
        if (row >= M)
          continue;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt)
          epi(b, static_cast<int64>(row), static_cast<int64>(8 * dt + 2 * (lane % 4)),
              o[mt][dt][2 * h], o[mt][dt][2 * h + 1], l, rowMax[mt][h]);
      }
#endif
  }
};

} // namespace helion::dev
