//===- Workspace.cpp - per-stream device workspaces ------------------------===//
//
// One buffer per (device, stream, thread for the per-thread default stream), grown
// on demand and never freed: a kernel queued on the stream may still use the old
// one, so a grown workspace leaves it allocated (sizes are rounded up to powers of
// two, so a stream grows a few times at most). A new buffer is zeroed on its
// stream before any kernel of that stream can read it.
//===----------------------------------------------------------------------===//

#include "helion/runtime/Driver.h"
#include "helion/runtime/Stream.h"

#include "DriverApi.h"
#include "StreamKey.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace helion::rt {
namespace {

struct Buffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
};

struct Workspaces {
  std::mutex mutex;
  std::map<detail::StreamKey, Buffer> buffers;
};

Workspaces &workspaces() {
  static Workspaces *w = new Workspaces; // never destroyed: launches may run at exit
  return *w;
}

} // namespace

CUdeviceptr streamWorkspace(CUstream stream, size_t bytes) {
  const detail::StreamKey key = detail::streamKey(stream);
  const int device = std::get<0>(key);
  Workspaces &w = workspaces();
  std::lock_guard<std::mutex> lock(w.mutex);
  Buffer &b = w.buffers[key];
  if (b.bytes >= bytes)
    return b.ptr;
  size_t size = size_t(1) << 20;
  while (size < bytes)
    size *= 2;
  useDevice(device);
  const detail::DriverApi &api = detail::driverApi();
  CUdeviceptr fresh = 0;
  checkCuda(api.cuMemAlloc(&fresh, size), "allocating a stream workspace");
  checkCuda(api.cuMemsetD8Async(fresh, 0, size, stream), "zeroing a stream workspace");
  b = {fresh, size};
  return fresh;
}

namespace {
bool unset(const char *name) {
  const char *off = std::getenv(name);
  return !(off && *off && *off != '0');
}
} // namespace

bool streamKEnabled() { return unset("HELIONC_NO_STREAM_K"); }

bool rowFittingEnabled() { return unset("HELIONC_NO_ROW_FITTING"); }

bool rowFittingForced() { return !unset("HELIONC_ROW_FITTING"); }

} // namespace helion::rt
