//===- CudaNames.h - Kernel parameters' identifiers in generated CUDA -*- C++ -*-===//
//
// The one rule for every identifier of generated device code that comes from a name in
// the kernel's source: a tensor or scalar parameter `x` is `p_x`, its element type
// `T_p_x`, its element count `numel_p_x`, its sizes and strides `size_p_x_D` and
// `stride_p_x_D`. No identifier the emitters or the device headers declare starts with
// `p_`, so a parameter named like one of their locals (`pid`, `acc`, `v`, `T_t0`,
// `coord`, ...) neither shadows it nor is shadowed by it. Values of the kernel body are
// `v<N>_<name>` (Emitter::varName). Diagnostics and host code keep the source's names.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <string>

namespace helion::codegen {

inline std::string cudaName(const ir::Param& p) { return "p_" + p.name; }
inline std::string cudaType(const ir::Param& p) { return "T_" + cudaName(p); }

} // namespace helion::codegen
