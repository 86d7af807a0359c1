//===- helion/runtime/Runtime.h - the whole host runtime --------*- C++ -*-===//
//
// What generated host code includes: compile (NVRTC + disk cache), the Driver
// API loaded at run time, kernel loading and launching, TMA descriptors, the
// CUDA backend of helion::Tensor and the C entry points.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/CApi.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/Driver.h"
#include "helion/runtime/Error.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/TensorMap.h"
