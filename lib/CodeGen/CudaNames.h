//===- CudaNames.h - Kernel parameters' identifiers in generated code -*- C++ -*-===//
//
// The one rule for every identifier of generated code that comes from a name in the
// kernel's source: a tensor or scalar parameter `x` is `p_x` in the device code and in
// its launcher (the static host function that checks and launches it); in device code
// its element type is `T_p_x`, its element count `numel_p_x`, its sizes and strides
// `size_p_x_D` and `stride_p_x_D` (genType, genNumel, genSize, genStride: the emitters
// spell these only through them). No identifier the emitters, the launchers or the
// device headers declare starts with `p_`, so a parameter named like one of their
// locals (`pid`, `acc`, `v`, `T_t0`, `coord`, `grid`, `args`, `kernel`, ...) neither
// shadows it nor is shadowed by it. Values of the kernel body are `v<N>_<name>`
// (Emitter::varName). Diagnostics, messages and the entries users call (the rewritten
// kernel, its stream overload, the C entry) keep the source's names.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <cstdint>
#include <string>

namespace helion::codegen {

inline std::string genName(const ir::Param& p) { return "p_" + p.name; }

/// The names derived from a parameter's generated name `g` (genName: `p_x`): its element
/// type `T_p_x`, its element count `numel_p_x`, the size and the stride of its dimension d
/// `size_p_x_D` and `stride_p_x_D`.
inline std::string genType(const std::string& g) { return "T_" + g; }
inline std::string genNumel(const std::string& g) { return "numel_" + g; }
inline std::string genSize(const std::string& g, int64_t d) {
  return "size_" + g + "_" + std::to_string(d);
}
inline std::string genStride(const std::string& g, int64_t d) {
  return "stride_" + g + "_" + std::to_string(d);
}
/// The same, of a parameter.
inline std::string genType(const ir::Param& p) { return genType(genName(p)); }
inline std::string genNumel(const ir::Param& p) { return genNumel(genName(p)); }
inline std::string genSize(const ir::Param& p, int64_t d) { return genSize(genName(p), d); }
inline std::string genStride(const ir::Param& p, int64_t d) { return genStride(genName(p), d); }
/// The source's name of a generated name `p_x` (x), for a launcher's messages.
inline std::string shownName(const std::string& generated) { return generated.substr(2); }

} // namespace helion::codegen
