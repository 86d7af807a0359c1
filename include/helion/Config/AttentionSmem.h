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

} // namespace helion::config
