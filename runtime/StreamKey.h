//===- StreamKey.h - what identifies a stream's per-stream state -----------===//
//
// Per-stream device state (TileCounter.cpp's counters, Workspace.cpp's workspaces) is
// kept per (device, stream, thread): the per-thread default stream is a different
// stream on every thread, every other handle is one stream on all threads.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Driver.h"

#include <cuda.h>

#include <thread>
#include <tuple>

namespace helion::rt::detail {

using StreamKey = std::tuple<int, CUstream, std::thread::id>;

/// The key of `stream` on the current device and, for CU_STREAM_PER_THREAD, thread.
inline StreamKey streamKey(CUstream stream) {
  return {currentDevice(), stream,
          stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : std::thread::id()};
}

} // namespace helion::rt::detail
