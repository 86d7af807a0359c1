//===- AttentionSmem.h - Shared memory of the sm90 flash attention -*- C++ -*-===//
//
// AttentionSm90<T, d, bn, consumers, stages>::kSmemBytes of
// runtime/device/helion/attention_sm90.cuh (16-bit T), spelled once for the config
// validator (lib/Config/Validate.cpp), the plan and the launcher (lib/CodeGen); the
// kernel traps if the launch gave it less.
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace helion::config {

/// 1024 bytes of alignment slack, Q (64 rows per consumer), the K and V rings, and
/// 3 + 4 x stages 8-byte slots (the mbarriers and the next tile's index).
inline constexpr int64_t attentionSm90SmemBytes(int64_t d, int64_t bn, int64_t consumers,
                                                int64_t stages) {
  return 1024 + 64 * consumers * d * 2 + 2 * stages * bn * d * 2 + 8 * (3 + 4 * stages);
}

/// AttentionSm90<..., TOut>::kBytesOut: the staging of the output for TMA stores,
/// consumers x 64 rows x d elements of outBytes (1, 2 or 4), when a row fills whole
/// 128-byte boxes and it fits beside the rest in the 227 KB of a CTA; else 0 (the
/// kernel stores from registers).
inline constexpr int64_t attentionSm90OutStagingBytes(int64_t d, int64_t bn, int64_t consumers,
                                                      int64_t stages, int64_t outBytes) {
  const int64_t staging = consumers * 64 * d * outBytes;
  return (outBytes == 1 || outBytes == 2 || outBytes == 4) && d * outBytes >= 128 &&
                 attentionSm90SmemBytes(d, bn, consumers, stages) + staging <= 227 * 1024
             ? staging
             : 0;
}

} // namespace helion::config
