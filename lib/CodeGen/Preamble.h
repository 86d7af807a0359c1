//===- Preamble.h - What every generic kernel's source starts with ---------===//
//
// The emitted source of a generic kernel (one that is no matmul or attention
// template) includes the device library's helion/generic.cuh first: the layout
// helpers the emitter's code calls (coord, axis_vec, row_min_blocks, hvec, load_hint,
// axis_reduce, round_to); a kernel with a scan also helion/generic_scan.cuh.
//===----------------------------------------------------------------------===//
#pragma once

namespace helion::codegen {

inline constexpr const char* kPreamble = R"CUDA(#include "helion/generic.cuh"
)CUDA";

/// Emitted after kPreamble only in kernels with a scan (hl::cumsum, hl::cumprod), so
/// that the others' source and NVRTC time stay as they were.
inline constexpr const char* kScanPreamble = R"CUDA(#include "helion/generic_scan.cuh"
)CUDA";

} // namespace helion::codegen
