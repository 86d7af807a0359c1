// <helion/hl.h>: the helionc kernel language, and its CPU implementation ("ref mode").
//
// Compiled by helionc, HELION_KERNEL functions become GPU kernels; compiled by any
// C++23 compiler as is, this header runs them eagerly on the CPU, which makes ref mode
// the semantic reference for tests and debugging. docs/language.md is the reference.
//
// Namespaces (the frontend matches these qualified names; keep them stable):
//   helion::          host API: Tensor, DType, Device, DeviceType, DeviceBackend,
//                     set_device_backend, empty, empty_like, zeros, Error,
//                     to_dlpack, from_dlpack, DL* (DLPack ABI), Half, BFloat16
//   helion::hl::      the device language: tile, grid, Tile, TileND, block_size,
//                     tunable, register_block_size, specialize, all, newaxis, Block,
//                     TensorRef, load, store, zeros, full, arange, exp, log, sqrt,
//                     rsqrt, tanh, sigmoid, abs, maximum, minimum, where, sum, amax,
//                     amin, mean, dot, addmm, the block operators, and the dtypes
//                     f16 bf16 f32 f64 i8 i32 i64 b8
//   helion::ref::     ref-mode controls: block_size, set_block_size, ScopedBlockSize
//   helion::detail::  implementation; not for users
//   ::hl              alias of helion::hl, so kernels write hl::tile
// Macros: HELION_KERNEL, HELION_CHECK.
#pragma once

#include <cmath>  // kernels use std::sqrt and INFINITY
#include <tuple>    // kernels may return std::tuple<Tensor, ...> ...
#include <utility>  // ... or std::pair<Tensor, Tensor>

#include "helion/hl/block.h"
#include "helion/hl/bounds.h"
#include "helion/hl/device.h"
#include "helion/hl/dlpack.h"
#include "helion/hl/dot.h"
#include "helion/hl/dtype.h"
#include "helion/hl/error.h"
#include "helion/hl/half.h"
#include "helion/hl/memory.h"
#include "helion/hl/ops.h"
#include "helion/hl/random.h"
#include "helion/hl/reductions.h"
#include "helion/hl/scans.h"
#include "helion/hl/tensor.h"
#include "helion/hl/tile.h"
#include "helion/hl/views.h"

namespace hl = helion::hl;

/// Marks a kernel for helionc's frontend; in ref mode the function is plain C++.
#if defined(__clang__)
#define HELION_KERNEL [[clang::annotate("helion.kernel")]]
#else
#define HELION_KERNEL
#endif
