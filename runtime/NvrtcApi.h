//===- NvrtcApi.h - entry points resolved from libnvrtc.so.N ----*- C++ -*-===//
//
// Private to the runtime. NVRTC is opened with dlopen at its first use, as the
// driver is (DriverApi.h): a program whose kernels are all embedded ahead of time
// (helionc compile --aot-arch) starts and runs without libnvrtc anywhere.
//
// The library tried: $HELIONC_NVRTC_LIBRARY when set (a path or a name, and only
// it), else libnvrtc.so.<the CUDA major version of cuda.h> through the loader's
// search path, then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nvrtc.h> // types and enums only: nothing links against libnvrtc

#include <string>

namespace helion::rt::detail {

#define HELION_NVRTC_ENTRY_POINTS(X)                                                               \
  X(nvrtcVersion)                                                                                  \
  X(nvrtcGetErrorString)                                                                           \
  X(nvrtcCreateProgram)                                                                            \
  X(nvrtcDestroyProgram)                                                                           \
  X(nvrtcAddNameExpression)                                                                        \
  X(nvrtcCompileProgram)                                                                           \
  X(nvrtcGetProgramLogSize)                                                                        \
  X(nvrtcGetProgramLog)                                                                            \
  X(nvrtcGetCUBINSize)                                                                             \
  X(nvrtcGetCUBIN)                                                                                 \
  X(nvrtcGetPTXSize)                                                                               \
  X(nvrtcGetPTX)                                                                                   \
  X(nvrtcGetLoweredName)

struct NvrtcApi {
#define HELION_DECLARE_NVRTC_ENTRY(name) decltype(&::name) name = nullptr;
  HELION_NVRTC_ENTRY_POINTS(HELION_DECLARE_NVRTC_ENTRY)
#undef HELION_DECLARE_NVRTC_ENTRY
  std::string path; ///< the file the library was loaded from
};

/// The loaded NVRTC; throws std::runtime_error naming the libraries tried when none
/// loads or one lacks an entry point. Thread-safe; loads once, remembers a failure.
const NvrtcApi &nvrtcApi();

} // namespace helion::rt::detail
