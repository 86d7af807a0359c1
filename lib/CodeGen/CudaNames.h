//===- CudaNames.h - Kernel parameters' identifiers in generated code -*- C++ -*-===//
//
// The one rule for every identifier of generated code that comes from a name in the
// kernel's source: a tensor or scalar parameter `x` is `p_x` in the device code and in
// its launcher (the static host function that checks and launches it); in device code
// its element type is `T_p_x`, its element count `numel_p_x`, its sizes and strides
// `size_p_x_D` and `stride_p_x_D`. No identifier the emitters, the launchers or the
// device headers declare starts with `p_`, so a parameter named like one of their
// locals (`pid`, `acc`, `v`, `T_t0`, `coord`, `grid`, `args`, `kernel`, ...) neither
// shadows it nor is shadowed by it. Values of the kernel body are `v<N>_<name>`
// (Emitter::varName). Diagnostics, messages and the entries users call (the rewritten
// kernel, its stream overload, the C entry) keep the source's names.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <string>

namespace helion::codegen {

inline std::string genName(const ir::Param& p) { return "p_" + p.name; }
inline std::string genType(const ir::Param& p) { return "T_" + genName(p); }
/// The source's name of a generated name `p_x` (x), for a launcher's messages.
inline std::string shownName(const std::string& generated) { return generated.substr(2); }

} // namespace helion::codegen
