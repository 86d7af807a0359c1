//===- TileCounter.cpp - per-stream tile counters --------------------------===//
//
// Counters come from pools of kPool ints per device, allocated and zeroed on
// first use and never freed (kernels may still use them at exit). A stream keeps
// its slot for the life of the process; a new stream handle that reuses a
// destroyed one's address gets that slot, which is 0 again (every kernel resets
// the counter it used).
//===----------------------------------------------------------------------===//

#include "helion/runtime/Driver.h"
#include "helion/runtime/Stream.h"

#include "DriverApi.h"
#include "StreamKey.h"

#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

namespace helion::rt {
namespace {

constexpr int kPool = 1024; // counters per allocation

struct Counters {
  std::mutex mutex;
  /// (device, stream, thread for the per-thread default stream) -> counter.
  std::map<detail::StreamKey, CUdeviceptr> slots;
  /// Per device: the pool being handed out and how many of it are taken.
  std::map<int, std::pair<CUdeviceptr, int>> pools;
};

Counters &counters() {
  static Counters *c = new Counters; // never destroyed: launches may run at exit
  return *c;
}

} // namespace

CUdeviceptr tileCounter(CUstream stream) {
  const detail::StreamKey key = detail::streamKey(stream);
  const int device = std::get<0>(key);
  // The last answer of this thread, without the lock.
  thread_local detail::StreamKey lastKey{-1, nullptr, {}};
  thread_local CUdeviceptr last = 0;
  if (last != 0 && key == lastKey)
    return last;
  Counters &c = counters();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto found = c.slots.find(key);
  if (found == c.slots.end()) {
    auto &[pool, used] = c.pools[device];
    if (pool == 0 || used == kPool) {
      useDevice(device);
      const detail::DriverApi &api = detail::driverApi();
      CUdeviceptr fresh = 0;
      checkCuda(api.cuMemAlloc(&fresh, kPool * sizeof(int)), "allocating tile counters");
      checkCuda(api.cuMemsetD8(fresh, 0, kPool * sizeof(int)), "zeroing tile counters");
      pool = fresh;
      used = 0;
    }
    found = c.slots.emplace(key, pool + sizeof(int) * used++).first;
  }
  lastKey = key;
  last = found->second;
  return last;
}

} // namespace helion::rt
