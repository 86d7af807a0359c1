// DLPack interop: the ABI structs (declared here from the DLPack specification, so
// hl.h needs no dlpack.h) and helion::to_dlpack / helion::from_dlpack.
//
// The layout is the one of DLPack v0.8+ (DLManagedTensor, unversioned): a pointer
// received from PyTorch's torch.utils.dlpack.to_dlpack (a capsule's payload) can be
// passed to from_dlpack, and to_dlpack's result can go back the other way.
#pragma once

#include <cstdint>
#include <vector>

#include "helion/hl/tensor.h"

namespace helion {

enum class DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };

struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};

enum class DLDataTypeCode : uint8_t {
  kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLOpaqueHandle = 3, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6,
  kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12 // DLPack 1.1
};

struct DLDataType {
  uint8_t code;   // a DLDataTypeCode
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null means contiguous
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(sizeof(void*) != 8 || (sizeof(DLTensor) == 48 && sizeof(DLManagedTensor) == 64),
              "DLPack ABI layout");

namespace detail {

struct DLPackContext {
  Tensor tensor;  // keeps the memory alive while the consumer holds it
  std::vector<int64_t> shape, strides;
};

inline DLDataType toDLDataType(DType d) {
  auto bits = static_cast<uint8_t>(element_size(d) * 8);
  switch (d) {
  case DType::f16: case DType::f32: case DType::f64:
    return {static_cast<uint8_t>(DLDataTypeCode::kDLFloat), bits, 1};
  case DType::bf16: return {static_cast<uint8_t>(DLDataTypeCode::kDLBfloat), 16, 1};
  case DType::b8: return {static_cast<uint8_t>(DLDataTypeCode::kDLBool), 8, 1};
  case DType::u8: return {static_cast<uint8_t>(DLDataTypeCode::kDLUInt), 8, 1};
  case DType::f8e4m3: return {static_cast<uint8_t>(DLDataTypeCode::kDLFloat8_e4m3fn), 8, 1};
  case DType::f8e5m2: return {static_cast<uint8_t>(DLDataTypeCode::kDLFloat8_e5m2), 8, 1};
  default: return {static_cast<uint8_t>(DLDataTypeCode::kDLInt), bits, 1};
  }
}

inline DType fromDLDataType(DLDataType t) {
  if (t.lanes != 1)
    fail("from_dlpack: vector dtypes (lanes={}) are not supported", t.lanes);
  auto code = static_cast<DLDataTypeCode>(t.code);
  if (code == DLDataTypeCode::kDLFloat && t.bits == 16) return DType::f16;
  if (code == DLDataTypeCode::kDLFloat && t.bits == 32) return DType::f32;
  if (code == DLDataTypeCode::kDLFloat && t.bits == 64) return DType::f64;
  if (code == DLDataTypeCode::kDLBfloat && t.bits == 16) return DType::bf16;
  if (code == DLDataTypeCode::kDLInt && t.bits == 8) return DType::i8;
  if (code == DLDataTypeCode::kDLInt && t.bits == 32) return DType::i32;
  if (code == DLDataTypeCode::kDLInt && t.bits == 64) return DType::i64;
  if (code == DLDataTypeCode::kDLBool && t.bits == 8) return DType::b8;
  if (code == DLDataTypeCode::kDLUInt && t.bits == 8) return DType::u8;
  if (code == DLDataTypeCode::kDLFloat8_e4m3fn && t.bits == 8) return DType::f8e4m3;
  if (code == DLDataTypeCode::kDLFloat8_e5m2 && t.bits == 8) return DType::f8e5m2;
  fail("from_dlpack: unsupported dtype (code {}, {} bits)", static_cast<int>(t.code), t.bits);
}

} // namespace detail

/// Exports `t` as a DLManagedTensor that shares its memory. The consumer calls its
/// deleter when done; the memory stays alive until then (and until `t`'s handles go).
inline DLManagedTensor* to_dlpack(const Tensor& t) {
  if (!t.defined())
    detail::fail("to_dlpack: the tensor is undefined");
  auto* ctx = new detail::DLPackContext{t, t.sizes(), t.strides()};
  auto* managed = new DLManagedTensor{};
  DLTensor& dl = managed->dl_tensor;
  dl.data = t.data_ptr();
  dl.device = {t.device().type == DeviceType::CUDA ? DLDeviceType::kDLCUDA : DLDeviceType::kDLCPU,
               t.device().index};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = detail::toDLDataType(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  managed->manager_ctx = ctx;
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<detail::DLPackContext*>(self->manager_ctx);
    delete self;
  };
  return managed;
}

/// Imports a DLManagedTensor without copying. The Tensor (and its copies) own it: its
/// deleter runs when the last of them goes. On error nothing is taken over, and the
/// caller still owns `managed`.
inline Tensor from_dlpack(DLManagedTensor* managed) {
  if (!managed)
    detail::fail("from_dlpack: null DLManagedTensor");
  const DLTensor& dl = managed->dl_tensor;
  DType dtype = detail::fromDLDataType(dl.dtype);
  Device device;
  if (dl.device.device_type == DLDeviceType::kDLCPU || dl.device.device_type == DLDeviceType::kDLCUDAHost)
    device = Device::cpu();
  else if (dl.device.device_type == DLDeviceType::kDLCUDA)
    device = Device::cuda(dl.device.device_id);
  else
    detail::fail("from_dlpack: unsupported device type {}", static_cast<int>(dl.device.device_type));
  if (dl.ndim < 0 || (dl.ndim > 0 && !dl.shape))
    detail::fail("from_dlpack: bad shape (ndim={})", dl.ndim);
  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides;
  if (dl.strides)
    strides.assign(dl.strides, dl.strides + dl.ndim);
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  return Tensor::from_blob(data, std::move(sizes), std::move(strides), dtype, device,
                           [managed](void*) {
                             if (managed->deleter)
                               managed->deleter(managed);
                           });
}

} // namespace helion
