// helion/gemm_smem.cuh: the shared memory of the sm90 GEMM template (gemm_sm90.cuh): its
// ring, and how it slices its C tile for the tma_store epilogue; its launcher
// (MatmulLauncher.cpp) sizes the kernel's shared memory with the same functions.
//
// Host-compilable (integer arithmetic only).
#pragma once

#ifndef __CUDACC__
#define HELION_SMEM_FN constexpr inline
#else
#define HELION_SMEM_FN __host__ __device__ constexpr
#endif

namespace helion::dev {

/// Shared memory a CTA may use on sm_90.
constexpr int kSm90MaxSmem = 227 * 1024;

/// The ring of an sm90 GEMM (Gemm::kRingBytes): 1024 bytes of alignment slack, then per
/// stage one 128-byte row of a k-block for each of A's `bm` rows, B's `bn` columns and,
/// with a staged A-shaped tensor, `bm` more, and its full and empty barriers.
HELION_SMEM_FN int gemm_ring_bytes(int bm, int bn, int stages, bool staged) {
  return 1024 + stages * ((bm + bn + (staged ? bm : 0)) * 128 + 16);
}

/// The column slices in which the tma_store epilogue writes a C tile of `tileBytes`
/// through a buffer of tileBytes / p: the fewest p of 1, 2 and 4 whose buffer fits next to
/// `ringBytes` and whose slices are whole 128-byte boxes of the tile's `bn` columns of
/// `outBytes`-byte elements (bn a multiple of p * 128 / outBytes). 0 where none does, e.g.
/// 256 x 64 with 16-bit C beside 5 stages of 40 KB (one slice does not fit, and 64 columns
/// of 2 bytes make one box): the GEMM then stores the tile as pairs (Gemm::kForm).
HELION_SMEM_FN int tma_store_parts(int ringBytes, int tileBytes, int bn, int outBytes) {
  for (int p = 1; p <= 4; p *= 2)
    if (ringBytes + tileBytes / p <= kSm90MaxSmem && bn % (p * (128 / outBytes)) == 0)
      return p;
  return 0;
}

} // namespace helion::dev
