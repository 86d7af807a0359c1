//===- helion/runtime/Runtime.h - the whole host runtime --------*- C++ -*-===//
//
// The whole host runtime: compile (NVRTC + disk cache), images embedded ahead of
// time, the Driver API and NVRTC loaded at run time, kernel loading and launching
// on the current stream, TMA descriptors, the CUDA backend of helion::Tensor and
// the C entry points.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Aot.h"
#include "helion/runtime/CApi.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/Driver.h"
#include "helion/runtime/Error.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/Stream.h"
#include "helion/runtime/TensorMap.h"
