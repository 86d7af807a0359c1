//===- CudaLiteral.h - Numbers as CUDA C++ source text ---------*- C++ -*-===//
//
// Shared by the elementwise emitter and the matmul epilogue emitter.
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <sstream>
#include <string>

namespace helion::codegen {

/// A constant as CUDA source: int64(...) for integers, a float literal
/// otherwise (infinities and NaN through bit patterns, which NVRTC accepts
/// without <cmath>).
inline std::string cudaLiteral(double v, bool isInt) {
  if (isInt)
    return "int64(" + std::to_string(static_cast<long long>(v)) + ")";
  if (std::isinf(v))
    return v > 0 ? "__int_as_float(0x7f800000)" : "(-__int_as_float(0x7f800000))";
  if (std::isnan(v))
    return "__int_as_float(0x7fffffff)";
  std::ostringstream os;
  os.precision(9);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

} // namespace helion::codegen
