//===- helion/runtime/Generated.h - Support for generated host code -*- C++ -*-===//
//
// What `helionc compile` output (kernel.helion.cpp) calls besides loadKernel and
// launch: the NVRTC type name of a dtype, and the vector width a set of tensors
// allows (16-byte accesses need aligned pointers, a unit innermost stride and
// other strides that keep rows aligned).
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/hl.h"
#include "helion/runtime/Choice.h"
#include "helion/runtime/Driver.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/Layout.h"
#include "helion/runtime/ShapeDispatch.h"
#include "helion/runtime/TensorMap.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace helion::rt {

/// The device library's name for a dtype, as the emitted templates expect it.
inline const char *deviceTypeName(DType t) {
  switch (t) {
  case DType::f16:
    return "hd::f16";
  case DType::bf16:
    return "hd::bf16";
  case DType::f32:
    return "float";
  case DType::f64:
    return "double";
  case DType::i8:
    return "hd::int8";
  case DType::i32:
    return "hd::int32";
  case DType::i64:
    return "hd::int64";
  case DType::b8:
    return "bool";
  case DType::u8:
    return "hd::uint8";
  case DType::f8e4m3:
    return "hd::f8e4m3";
  case DType::f8e5m2:
    return "hd::f8e5m2";
  }
  return "float";
}

/// The largest vector width (elements, a power of two) such that `maxBytes`-byte
/// accesses of the first tensor stay aligned for every tensor given, and that
/// divides every tensor's innermost size.
inline int vectorWidth(std::initializer_list<const Tensor *> tensors, int maxBytes) {
  if (tensors.size() == 0)
    return 1;
  int vec = std::max<int>(1, maxBytes / static_cast<int>((*tensors.begin())->element_size()));
  for (; vec > 1; vec /= 2) {
    bool ok = true;
    for (const Tensor *t : tensors) {
      int64_t bytes = vec * static_cast<int64_t>(t->element_size());
      if (reinterpret_cast<uintptr_t>(t->data_ptr()) % bytes != 0)
        ok = false;
      if (t->dim() > 0 && t->stride(t->dim() - 1) != 1 && t->size(t->dim() - 1) > 1)
        ok = false;
      // Vectors never straddle the end of a row (or of a flat tensor): kernels
      // have no scalar edge path.
      if (t->dim() > 0 && t->size(t->dim() - 1) % vec != 0)
        ok = false;
      for (int64_t d = 0; d + 1 < t->dim(); ++d)
        if (t->stride(d) % vec != 0 && t->size(d) > 1)
          ok = false;
    }
    if (ok)
      break;
  }
  return vec;
}

} // namespace helion::rt
