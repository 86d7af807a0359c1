//===- helion/runtime/Layout.h - Row layout arithmetic -----------*- C++ -*-===//
//
// The extent a persistent reduction axis is compiled for (the template argument
// RDIM of row kernels). Shared by the generated launchers (Generated.h) and
// `helionc compile --emit cubin --size-hint`, which must name the same
// instantiation. No dependencies.
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>

namespace helion::rt {

inline int64_t nextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The padded extent a persistent reduction axis of `n` elements is compiled for
/// on `threads` threads:
/// - n itself when it is a multiple of 4 elements per thread: every thread holds
///   whole vectors of 4 or 8 (the kernel's axis_vec picks the width) and no lane
///   is masked (10240 on 512 threads: 10240 in 4-wide vectors, not 12288 in 8-wide
///   ones of which a sixth are masked);
/// - else the next power of two, or the next multiple of 8 elements per thread
///   when that is smaller. Either way the thread counts stay powers of two.
inline int64_t reductionExtent(int64_t n, int threads) {
  if (n > 0 && n % (int64_t(threads) * 4) == 0)
    return n;
  const int64_t granule = int64_t(threads) * 8;
  return std::min(nextPowerOfTwo(n), cdiv(n, granule) * granule);
}

} // namespace helion::rt
