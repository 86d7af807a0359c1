// helion/gemm_sm90_mainloops.cuh: the K loops of gemm_sm90.cuh's Gemm besides the plain
// one (part of gemm_sm90.cuh, which declares them and includes this file after the class;
// not included on its own): a computed A (mainloop_prologue_a, gemm_tiles.cuh
// has_prologue_a) and a product scaled per K block (mainloop_kscale, has_kscale). Their
// comments are at their declarations.
#pragma once

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

template <class TIn, class TOut, int BM, int BN, int BK, int Stages, int Consumers,
          bool BTransposed, bool Persistent, EpilogueForm Form, int Cluster, bool Batched,
          bool StagedA>
template <class Epi>
__device__ __forceinline__ void
Gemm<TIn, TOut, BM, BN, BK, Stages, Consumers, BTransposed, Persistent, Form, Cluster, Batched,
     StagedA>::mainloop_prologue_a(float (&acc)[kMmaM][BN / 2], const Epi& epi, int64 row0,
                                   int K, int kBlocks, int tid, int consumer, uint8* base,
                                   uint64* full, uint64* empty, int& s, uint32& phase) {
  using namespace sm90;
  static_assert(!is_float8_v<TIn>, "Gemm: an A prologue needs 16-bit operands");
  const int lane = tid % 32, q = lane / 8;
  const int row = 16 * (tid / 32) + 8 * (q % 2) + lane % 8; // ldmatrix.x4 row of this lane
  using Frags = uint32[kMmaM][kKSteps][4];
  Frags f0, f1;
  auto load = [&](Frags& f, int kb) { // block kb's fragments from stage s
    mbarrier_wait(&full[s], phase);
    const uint32 a = smem_addr(base + s * kStageBytes) + consumer * kWgM * 128;
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk) {
        const uint32 at = sm80::swizzle128(64 * mi + row, 2 * kk + q / 2);
        sm80::ldmatrix_x4(f[mi][kk], a + at);
        if constexpr (StagedA) { // y's fragment, at the same place in its block
          uint32 y[4];
          sm80::ldmatrix_x4(y, a + kStageBytesA + kStageBytesB + at);
          prologue_fragment_staged<TIn>(epi, f[mi][kk], y, row0 + 64 * mi + 16 * (tid / 32),
                                        kb * BK + 16 * kk, K, lane);
        } else {
          prologue_fragment<TIn>(epi, f[mi][kk], row0 + 64 * mi + 16 * (tid / 32),
                                 kb * BK + 16 * kk, K, lane);
        }
      }
  };
  int prev = 0;
  auto step = [&](Frags& cur, Frags& next, int kb) {
    const uint64 descB = descOfB(smem_addr(base + s * kStageBytes + kStageBytesA));
    fence_acc(acc);
    fence_frags(cur);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kKSteps; ++kk)
#pragma unroll
      for (int mi = 0; mi < kMmaM; ++mi)
        wgmma_m64k16_rs<BN, TIn, BTransposed ? 0 : 1>(acc[mi], cur[mi][kk],
                                                      descB + stepOfB(kk), 1);
    wgmma_commit();
    fence_acc(acc);
    wgmma_wait<1>(); // block kb - 1's group, which read `next`
    fence_acc(acc);
    fence_frags(next);
    if (kb > 0 && tid % 32 == 0)
      release(&empty[prev]);
    prev = s;
    advance(s, phase);
    if (kb + 1 < kBlocks)
      load(next, kb + 1);
  };
  if (kBlocks > 0)
    load(f0, 0);
  for (int kb = 0; kb < kBlocks; kb += 2) {
    step(f0, f1, kb);
    if (kb + 1 < kBlocks)
      step(f1, f0, kb + 1);
  }
  wgmma_wait<0>();
  fence_acc(acc);
  if (kBlocks > 0 && tid % 32 == 0)
    release(&empty[prev]);
}

template <class TIn, class TOut, int BM, int BN, int BK, int Stages, int Consumers,
          bool BTransposed, bool Persistent, EpilogueForm Form, int Cluster, bool Batched,
          bool StagedA>
template <class Epi>
__device__ __forceinline__ void
Gemm<TIn, TOut, BM, BN, BK, Stages, Consumers, BTransposed, Persistent, Form, Cluster, Batched,
     StagedA>::mainloop_kscale(float (&acc)[kMmaM][BN / 2], const Epi& epi, int row0,
                               int col0, int M, int N, int K, int kBlocks, int tid, uint8* base,
                               uint64* full, uint64* empty, int& s, uint32& phase) {
  using namespace sm90;
  static_assert(!StagedA, "Gemm: a product scaled per K block has no A prologue");
  constexpr int kStepK = 32 / static_cast<int>(sizeof(TIn)); ///< elements of one k-step
  constexpr int kBlock = Epi::kKScaleBlock;
  constexpr int S = kscaleSteps<Epi>(); ///< k-steps per scale block
  static_assert(kBlock % kStepK == 0 && S > 0 && (S % kKSteps == 0 || kKSteps % S == 0),
                "Gemm: the scale block must be a power-of-two multiple of one 32-byte k-step");
  constexpr bool kColUniform = Epi::kKScaleColBlock % BN == 0;
  constexpr int kCols = kColUniform ? 1 : BN / 4;
  const int consumer = threadIdx.x / 128 - 1;
  float part[kMmaM][BN / 2];
  float rs[kMmaM][2], cs[kCols];
  float rsNext[kMmaM][2], csNext[kCols]; // the next block's factors, loaded a block ahead
  auto loadScalesTo = [&](float (&r)[kMmaM][2], float (&c)[kCols], int kb) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64 row = row0 + 64 * mi + WgmmaAcc::row(tid, 2 * h);
        r[mi][h] = epi.kscale_row(row < M ? row : M - 1, kb);
      }
#pragma unroll
    for (int j = 0; j < kCols; ++j) { // register pairs (j / 2) * 4 + j % 2: 8 columns apart
      const int64 col = col0 + (kColUniform ? 0 : WgmmaAcc::col(tid, (j / 2) * 4 + j % 2));
      c[j] = epi.kscale_col(col < N ? col : N - 1, kb);
    }
  };
  auto loadScales = [&](int kb) { loadScalesTo(rs, cs, kb); };
  auto takeNext = [&] {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        rs[mi][h] = rsNext[mi][h];
#pragma unroll
    for (int j = 0; j < kCols; ++j)
      cs[j] = csNext[j];
  };
  auto promoteFrom = [&](float (&p)[kMmaM][BN / 2]) {
#pragma unroll
    for (int mi = 0; mi < kMmaM; ++mi)
#pragma unroll
      for (int r = 0; r < BN / 2; ++r)
        acc[mi][r] = fmaf(p[mi][r],
                          rs[mi][(r / 2) % 2] * cs[kColUniform ? 0 : (r / 4) * 2 + r % 2],
                          acc[mi][r]);
  };
  auto promote = [&] { promoteFrom(part); };
  // The wgmmas of k-step kk of stage s into `part`; scale-d 0 starts a block. Stage 0's
  // descriptors are computed once, from a consumer index the compiler knows to be
  // warp-uniform (they stay in uniform registers), and a stage adds its offset: between
  // the wait for a stage and its wgmmas there are only a few uniform adds.
  const int wg = __shfl_sync(0xffffffffu, consumer, 0);
  const uint32 ring = smem_addr(base);
  const uint64 descA0 = desc_sw128(ring + wg * kWgM * 128, 16, 1024);
  const uint64 descB0 = descOfB(ring + kStageBytesA);
  auto issueTo = [&](float (&p)[kMmaM][BN / 2], int kk, int scaleD) {
    const uint64 off = static_cast<uint64>((s * kStageBytes) >> 4);
    wgmma_k_step(p, descA0 + off, descB0 + off, kk, scaleD);
  };
  auto issue = [&](int kk, int scaleD) { issueTo(part, kk, scaleD); };
  if constexpr (kscaleTwoParts<Epi>()) {
    // Two parts: block kb + 1's group is issued into the other part before block kb's
    // is waited for (wait_group 1), so that block kb's adds run while the tensor cores
    // work on block kb + 1. The loop is unrolled by two (each part stays in its own
    // registers) and its last block peeled: with no branch between an issue and its
    // wait inside the loop, ptxas keeps the wgmmas asynchronous (an issue under a
    // condition inside the loop made it serialize them, C7514).
    float partB[kMmaM][BN / 2];
    int prev = s;
    auto issueInto = [&](float (&p)[kMmaM][BN / 2]) { // the block at stage s
      mbarrier_wait(&full[s], phase);
      fence_acc(p);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk)
        issueTo(p, kk, kk == 0 ? 0 : 1);
      wgmma_commit();
      fence_acc(p);
    };
    auto finish = [&](float (&cur)[kMmaM][BN / 2]) { // `cur`'s group has completed
      fence_acc(cur);
      if (tid % 32 == 0)
        release(&empty[prev]);
      promoteFrom(cur);
      takeNext();
    };
    auto step = [&](float (&cur)[kMmaM][BN / 2], float (&next)[kMmaM][BN / 2], int kb) {
      prev = s;
      advance(s, phase);
      loadScalesTo(rsNext, csNext, kb + 1);
      issueInto(next);
      wgmma_wait<1>();
      finish(cur);
    };
    auto last = [&](float (&cur)[kMmaM][BN / 2]) {
      prev = s;
      advance(s, phase);
      wgmma_wait<0>();
      finish(cur);
    };
    if (kBlocks > 0) {
      loadScales(0);
      issueInto(part);
      int kb = 0;
      for (; kb + 2 < kBlocks; kb += 2) {
        step(part, partB, kb);
        step(partB, part, kb + 1);
      }
      if (kb + 1 < kBlocks) {
        step(part, partB, kb);
        last(partB);
      } else {
        last(part);
      }
    }
  } else if constexpr (S >= kKSteps) {
    constexpr int P = S / kKSteps; // stages per scale block
    // Block b + 1's factors load while block b's group runs, off the path from the wait
    // to the adds.
    if (kBlocks > 0)
      loadScales(0);
    for (int kb = 0; kb < kBlocks; ++kb) {
      mbarrier_wait(&full[s], phase);
      fence_acc(part);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk)
        issue(kk, kk == 0 && kb % P == 0 ? 0 : 1);
      wgmma_commit();
      const bool ends = (kb + 1) % P == 0 || kb + 1 == kBlocks;
      if (ends && kb + 1 < kBlocks)
        loadScalesTo(rsNext, csNext, kb / P + 1);
      fence_acc(part);
      wgmma_wait<0>();
      fence_acc(part);
      if (tid % 32 == 0)
        release(&empty[s]);
      if (ends) {
        promote();
        takeNext();
      }
      advance(s, phase);
    }
  } else {
    for (int kb = 0; kb < kBlocks; ++kb) {
      mbarrier_wait(&full[s], phase);
#pragma unroll
      for (int kk = 0; kk < kKSteps; ++kk) {
        if (kk % S == 0) {
          fence_acc(part);
          wgmma_fence();
        }
        issue(kk, kk % S == 0 ? 0 : 1);
        if ((kk + 1) % S == 0) {
          const int blk = (kb * kKSteps + kk) / S;
          const bool inK = blk * kBlock < K; // a block wholly past K adds nothing
          if (inK)
            loadScales(blk);
          wgmma_commit();
          wgmma_wait<0>();
          fence_acc(part);
          if (inK)
            promote();
        }
      }
      if (tid % 32 == 0)
        release(&empty[s]);
      advance(s, phase);
    }
  }
}

#endif // __CUDA_ARCH__ >= 900

} // namespace helion::dev
