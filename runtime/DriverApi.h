//===- DriverApi.h - entry points resolved from libcuda.so.1 ----*- C++ -*-===//
//
// Private to the runtime. Each entry point is looked up by its versioned
// symbol name (cuMemAlloc_v2, ...): the names cuda.h's macros map to, so the
// pointer types below match what the header declares.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

namespace helion::rt::detail {

// X(member, symbol): `member` is the API name, `symbol` the exported one.
#define HELION_DRIVER_ENTRY_POINTS(X)                                                              \
  X(cuInit, cuInit)                                                                                \
  X(cuDriverGetVersion, cuDriverGetVersion)                                                        \
  X(cuGetErrorName, cuGetErrorName)                                                                \
  X(cuGetErrorString, cuGetErrorString)                                                            \
  X(cuDeviceGetCount, cuDeviceGetCount)                                                            \
  X(cuDeviceGet, cuDeviceGet)                                                                      \
  X(cuDeviceGetName, cuDeviceGetName)                                                              \
  X(cuDeviceGetAttribute, cuDeviceGetAttribute)                                                    \
  X(cuDeviceTotalMem, cuDeviceTotalMem_v2)                                                         \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)                                            \
  X(cuCtxSetCurrent, cuCtxSetCurrent)                                                              \
  X(cuCtxGetCurrent, cuCtxGetCurrent)                                                              \
  X(cuCtxSynchronize, cuCtxSynchronize)                                                            \
  X(cuStreamSynchronize, cuStreamSynchronize)                                                      \
  X(cuModuleLoadData, cuModuleLoadData)                                                            \
  X(cuModuleGetFunction, cuModuleGetFunction)                                                      \
  X(cuFuncSetAttribute, cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute, cuFuncGetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor)      \
  X(cuLaunchKernel, cuLaunchKernel)                                                                \
  X(cuMemAlloc, cuMemAlloc_v2)                                                                     \
  X(cuMemFree, cuMemFree_v2)                                                                       \
  X(cuMemcpyHtoD, cuMemcpyHtoD_v2)                                                                 \
  X(cuMemcpyDtoH, cuMemcpyDtoH_v2)                                                                 \
  X(cuMemcpyDtoD, cuMemcpyDtoD_v2)                                                                 \
  X(cuMemsetD8, cuMemsetD8_v2)                                                                     \
  X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2)                                                       \
  X(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2)                                                       \
  X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2)                                                       \
  X(cuMemsetD8Async, cuMemsetD8Async)                                                              \
  X(cuTensorMapEncodeTiled, cuTensorMapEncodeTiled)                                              \
  X(cuEventCreate, cuEventCreate)                                                                  \
  X(cuEventRecord, cuEventRecord)                                                                  \
  X(cuEventSynchronize, cuEventSynchronize)                                                        \
  X(cuEventElapsedTime, cuEventElapsedTime_v2)                                                     \
  X(cuEventDestroy, cuEventDestroy_v2)

struct DriverApi {
#define HELION_DECLARE_ENTRY_POINT(member, symbol) decltype(&::symbol) member = nullptr;
  HELION_DRIVER_ENTRY_POINTS(HELION_DECLARE_ENTRY_POINT)
#undef HELION_DECLARE_ENTRY_POINT
};

/// The loaded driver with cuInit done; throws CudaError when libcuda.so.1 is
/// missing, lacks an entry point, or cuInit fails. Thread-safe; loads once.
const DriverApi &driverApi();

} // namespace helion::rt::detail
