//===- DotStaging.h - Shared memory of the general hl::dot ------*- C++ -*-===//
//
// The general dot (lib/CodeGen/EmitDot.cpp, runtime/device/helion/dot.cuh) stages
// an [M, K] and a [K, N] operand and the [M, N] f32 result in static shared
// memory, at most kDotStagingLimit bytes. The same formula as hd::BlockDot::kBytes,
// for the tuner's candidate filter (UnrolledSize.cpp) and the emitter's diagnostic.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace helion::config {

/// Static shared memory of a CTA: the staging area's limit.
inline constexpr int64_t kDotStagingLimit = 48 * 1024;

/// hd::BlockDot<T, T, M, N, K>::kBytes for operands of `elemBytes` (2: bf16 or
/// f16, m16n8k16; 4: f32 as tf32, m16n8k8): M, N, K rounded up to the mma shape,
/// leading dims padded by 16 bytes (the result's by 4 floats).
inline int64_t dotStagingBytes(int64_t m, int64_t n, int64_t k, int64_t elemBytes) {
  const int64_t mmaK = elemBytes == 4 ? 8 : 16, pad = 16 / elemBytes;
  const int64_t mp = (m + 15) / 16 * 16, np = (n + 7) / 8 * 8, kp = (k + mmaK - 1) / mmaK * mmaK;
  return (mp * (kp + pad) + kp * (np + pad)) * elemBytes + mp * (np + 4) * 4;
}

/// hd::MmaDot<T, T, M, N, K, NT, aStaged>::kBytes (the mma layout's dots, whose
/// result stays in registers): A (when staged) and B, K rounded up to 16.
inline int64_t mmaDotBytes(int64_t m, int64_t n, int64_t k, int64_t elemBytes, bool aStaged) {
  const int64_t pad = 16 / elemBytes, kp = (k + 15) / 16 * 16;
  return ((aStaged ? m * (kp + pad) : 0) + kp * (n + pad)) * elemBytes;
}

} // namespace helion::config
