// helion/device.cuh: the whole device library, for kernels emitted by helionc.
//
// Compiled by NVRTC with no host or toolkit headers. Everything lives in
// namespace helion::dev; emitted kernels write `namespace hd = helion::dev;`.
#pragma once
#include "helion/async.cuh"
#include "helion/math.cuh"
#include "helion/memory.cuh"
#include "helion/random.cuh"
#include "helion/reduce.cuh"
#include "helion/types.cuh"
