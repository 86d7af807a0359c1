//===- helion/runtime/TensorMap.h - TMA descriptors -------------*- C++ -*-===//
//
// Builds the CUtensorMap that `tensor_descriptor` indexing passes to a kernel
// by value (`const __grid_constant__ helion::dev::TensorMap map`) through
// cuTensorMapEncodeTiled of the loaded driver.
//
// Sizes, strides and box sizes are given outermost first, as Tensor::sizes()
// reads; the driver wants them innermost first, which makeTensorMap does.
// Example: a row-major 1000x512 f16 matrix tiled in 64x128 boxes is
//   {ptr, 2, {1000, 512}, {512, 1}, {64, 128}}; on the device, the box at
//   row r0, column c0 is tma_load_2d(dst, &map, bar, /*c0=*/c0, /*c1=*/r0).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Driver.h"

#include <cstdint>
#include <vector>

namespace helion::rt {

enum class Swizzle { none, b32, b64, b128 };

struct TensorMapDesc {
  void *base = nullptr;              ///< device address, 16-byte aligned
  int elementBytes = 0;              ///< 1, 2, 4 or 8
  std::vector<std::int64_t> sizes;   ///< elements, outermost first (rank 1 to 5)
  std::vector<std::int64_t> strides; ///< elements, outermost first; the last must be 1
  std::vector<std::int32_t> box;     ///< elements per box dimension, outermost first (<= 256)
  Swizzle swizzle = Swizzle::none;   ///< with a swizzle, box[last] * elementBytes <= the span
  /// Element type for the driver; CU_TENSOR_MAP_DATA_TYPE_UINT8 + size by default
  /// (the copy engine moves bytes: the type matters only for NaN fill).
  int dataType = -1;
};

/// Encodes the map, checking the rules the driver would reject with a bare
/// CUDA_ERROR_INVALID_VALUE (alignment, strides multiple of 16 bytes, box
/// limits) and saying which one failed. Throws CudaError / std::invalid_argument.
CUtensorMap makeTensorMap(const TensorMapDesc &desc);

/// The map of a whole tensor (anything with data_ptr(), dim(), size(i),
/// stride(i) and element_size(), as helion::Tensor), tiled by `box`.
template <class TensorLike>
CUtensorMap makeTensorMap(const TensorLike &t, std::vector<std::int32_t> box,
                          Swizzle swizzle = Swizzle::none) {
  TensorMapDesc desc;
  desc.base = const_cast<void *>(static_cast<const void *>(t.data_ptr()));
  desc.elementBytes = static_cast<int>(t.element_size());
  for (int i = 0; i < static_cast<int>(t.dim()); ++i) {
    desc.sizes.push_back(t.size(i));
    desc.strides.push_back(t.stride(i));
  }
  desc.box = std::move(box);
  desc.swizzle = swizzle;
  return makeTensorMap(desc);
}

} // namespace helion::rt
