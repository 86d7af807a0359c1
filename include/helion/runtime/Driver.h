//===- helion/runtime/Driver.h - the CUDA Driver API, loaded lazily -*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen on first use, so a binary linking the
// runtime starts (and runs CPU work) on a machine without a GPU driver; the
// first CUDA use there throws CudaError ("libcuda.so.1 could not be loaded").
// Every thread works in the device's primary context, made current on demand.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Error.h"

#include <cuda.h> // types and enums only: nothing links against libcuda

#include <cstddef>
#include <string>
#include <string_view>

namespace helion::rt {

/// What the code generator and the tuner read off a device.
struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;       ///< compute capability
  int smCount = 0;                ///< multiprocessors
  int maxSharedPerBlock = 0;      ///< bytes without opting in (48 KB)
  int maxSharedPerBlockOptin = 0; ///< bytes with a raised dynamic limit
  int l2Bytes = 0;
  int maxThreadsPerBlock = 0;
  std::size_t totalMemory = 0;
};

/// True when libcuda.so.1 loads and cuInit succeeds; never throws.
bool driverAvailable();

/// Throws CudaError unless the driver is usable.
void requireDriver();

int deviceCount();

/// The device this thread launches on (0 unless setDevice was called).
int currentDevice();
void setDevice(int device);

/// Cached per device; throws CudaError for a bad index.
const DeviceInfo &deviceInfo(int device);
inline const DeviceInfo &deviceInfo() { return deviceInfo(currentDevice()); }

/// The NVRTC architecture for a compute capability: "sm_90a" for 9.0 and
/// "sm_100a" for 10.0 (the a-variants unlock wgmma/setmaxnreg/tcgen05),
/// "sm_80", "sm_89", "sm_120" otherwise.
std::string archFor(int major, int minor);
/// archFor of the device's compute capability.
std::string archFor(int device);

/// Retains `device`'s primary context and makes it current on this thread.
CUcontext useDevice(int device);

/// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
std::string cudaErrorText(CUresult result);

/// Throws CudaError "helion: <what>: <cudaErrorText>" unless result is CUDA_SUCCESS.
void checkCuda(CUresult result, std::string_view what);

} // namespace helion::rt
