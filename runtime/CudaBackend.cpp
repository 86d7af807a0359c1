//===- CudaBackend.cpp - CUDA memory for helion::Tensor -------------------===//

#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/CApi.h"

#include "DriverApi.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/Aot.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/Stream.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "helion/hl/device.h"

namespace helion::rt {
namespace {

using detail::driverApi;

CUdeviceptr devicePtr(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }

/// Names the last kernel: a copy is where its asynchronous error shows up.
std::string copyWhat(const char *direction, std::size_t bytes) {
  std::string what = std::string("copying ") + std::to_string(bytes) + " bytes " + direction;
  std::string last = lastKernelName();
  if (!last.empty())
    what += " after kernel '" + last + "'";
  return what;
}

thread_local std::string lastError;

} // namespace

namespace {

/// Freed device blocks kept for reuse, per device and stream, as PyTorch's
/// caching allocator does: cuMemFree synchronizes the whole device and cuMemAlloc
/// costs tens of microseconds, so a kernel that allocates its output on every
/// call would otherwise run at a fraction of its speed. A block remembers the
/// stream that was current when it was allocated and is reused only by later
/// allocations on that stream, whose work is ordered after the work that used it
/// (a block used on another stream too must outlive that work, as with PyTorch
/// without record_stream). HELION_CUDA_ALLOCATOR=direct turns caching off (for
/// compute-sanitizer runs).
class BlockCache {
public:
  void *allocate(std::size_t bytes, int device) {
    const std::size_t size = roundUp(bytes);
    const CUstream stream = currentStream();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto &free = free_[{device, stream}];
      auto it = free.lower_bound(size);
      // A larger block serves a request only if little of it would be wasted.
      if (it != free.end() && it->first <= size + size / 8) {
        void *ptr = it->second;
        live_[ptr] = {it->first, stream};
        free.erase(it);
        return ptr;
      }
    }
    useDevice(device);
    CUdeviceptr ptr = 0;
    CUresult result = driverApi().cuMemAlloc(&ptr, size);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
      release(device);
      result = driverApi().cuMemAlloc(&ptr, size);
    }
    checkCuda(result, "allocating " + std::to_string(bytes) + " bytes on CUDA device " +
                          std::to_string(device));
    std::lock_guard<std::mutex> lock(mutex_);
    live_[reinterpret_cast<void *>(ptr)] = {size, stream};
    return reinterpret_cast<void *>(ptr);
  }

  /// False when `ptr` did not come from this cache.
  bool free(void *ptr, int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end())
      return false;
    free_[{device, it->second.stream}].emplace(it->second.size, ptr);
    live_.erase(it);
    return true;
  }

  /// Returns every cached block of `device` (of every stream) to the driver.
  void release(int device) {
    std::vector<void *> blocks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = free_.begin(); it != free_.end();) {
        if (it->first.first != device) {
          ++it;
          continue;
        }
        for (auto &[size, ptr] : it->second)
          blocks.push_back(ptr);
        it = free_.erase(it);
      }
    }
    if (blocks.empty())
      return;
    useDevice(device);
    for (void *ptr : blocks)
      driverApi().cuMemFree(devicePtr(ptr));
  }

private:
  static std::size_t roundUp(std::size_t bytes) {
    constexpr std::size_t kSmall = 512, kLarge = std::size_t(2) << 20;
    const std::size_t unit = bytes < (std::size_t(1) << 20) ? kSmall : kLarge;
    return (bytes + unit - 1) / unit * unit;
  }

  struct Live {
    std::size_t size;
    CUstream stream;
  };
  std::mutex mutex_;
  std::map<std::pair<int, CUstream>, std::multimap<std::size_t, void *>> free_;
  std::unordered_map<void *, Live> live_;
};

bool cachingEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("HELION_CUDA_ALLOCATOR");
    return !(v && std::string_view(v) == "direct");
  }();
  return enabled;
}

/// Never destroyed: tensors freed during static destruction still find it.
BlockCache &blockCache() {
  static BlockCache *cache = new BlockCache;
  return *cache;
}

} // namespace

void *cudaAllocate(std::size_t bytes, int device) {
  if (bytes == 0)
    return nullptr;
  if (cachingEnabled())
    return blockCache().allocate(bytes, device);
  useDevice(device);
  CUdeviceptr ptr = 0;
  checkCuda(driverApi().cuMemAlloc(&ptr, bytes), "allocating " + std::to_string(bytes) +
                                                     " bytes on CUDA device " +
                                                     std::to_string(device));
  return reinterpret_cast<void *>(ptr);
}

void cudaFree(void *ptr, int device) {
  if (!ptr)
    return;
  if (cachingEnabled() && blockCache().free(ptr, device))
    return;
  // Called from destructors, possibly after the driver shut down at exit:
  // never throw; remember the failure for helion_rt_last_error.
  try {
    useDevice(device);
    CUresult result = driverApi().cuMemFree(devicePtr(ptr));
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED)
      lastError = "helion: freeing device memory: " + cudaErrorText(result);
  } catch (const std::exception &e) {
    lastError = e.what();
  }
}

void cudaEmptyCache(int device) {
  if (cachingEnabled())
    blockCache().release(device);
}

void cudaCopyToDevice(void *dst, int dstDevice, const void *src, std::size_t bytes) {
  if (bytes == 0)
    return;
  useDevice(dstDevice);
  // From pageable memory the driver stages the bytes before returning: `src` may
  // be freed at once, and the copy is ordered on the stream.
  checkCuda(driverApi().cuMemcpyHtoDAsync(devicePtr(dst), src, bytes, currentStream()),
            copyWhat("to the device", bytes));
}

void cudaCopyToHost(void *dst, const void *src, int srcDevice, std::size_t bytes) {
  if (bytes == 0)
    return;
  useDevice(srcDevice);
  const CUstream stream = currentStream();
  checkCuda(driverApi().cuMemcpyDtoHAsync(dst, devicePtr(src), bytes, stream),
            copyWhat("to the host", bytes));
  checkCuda(driverApi().cuStreamSynchronize(stream), copyWhat("to the host", bytes));
}

void cudaCopyDeviceToDevice(void *dst, int dstDevice, const void *src, int srcDevice,
                            std::size_t bytes) {
  if (bytes == 0)
    return;
  if (dstDevice == srcDevice) {
    useDevice(dstDevice);
    checkCuda(driverApi().cuMemcpyDtoDAsync(devicePtr(dst), devicePtr(src), bytes, currentStream()),
              copyWhat("between device buffers", bytes));
    return;
  }
  // Across devices: stage through the host (rare; no peer access needed).
  std::vector<unsigned char> staging(bytes);
  cudaCopyToHost(staging.data(), src, srcDevice, bytes);
  cudaCopyToDevice(dst, dstDevice, staging.data(), bytes);
}

void cudaMemset(void *ptr, int device, unsigned char value, std::size_t bytes) {
  if (bytes == 0)
    return;
  useDevice(device);
  checkCuda(driverApi().cuMemsetD8Async(devicePtr(ptr), value, bytes, currentStream()),
            "filling " + std::to_string(bytes) + " bytes of device memory");
}

namespace {

void backendCopy(void *dst, Device dstDevice, const void *src, Device srcDevice,
                 std::size_t bytes) {
  const bool dstCuda = dstDevice.type == DeviceType::CUDA;
  const bool srcCuda = srcDevice.type == DeviceType::CUDA;
  if (dstCuda && srcCuda)
    cudaCopyDeviceToDevice(dst, dstDevice.index, src, srcDevice.index, bytes);
  else if (dstCuda)
    cudaCopyToDevice(dst, dstDevice.index, src, bytes);
  else if (srcCuda)
    cudaCopyToHost(dst, src, srcDevice.index, bytes);
  else if (bytes)
    std::memcpy(dst, src, bytes);
}

void backendFill(void *ptr, int device, unsigned char value, std::size_t bytes) {
  cudaMemset(ptr, device, value, bytes);
}

const DeviceBackend kCudaBackend = {&cudaAllocate, &cudaFree, &backendCopy, &backendFill};

} // namespace

void installCudaBackend() {
  // Leaves a backend someone else installed (a test's fake) in place.
  if (!device_backend(DeviceType::CUDA))
    set_device_backend(DeviceType::CUDA, &kCudaBackend);
}

namespace {
// Runs before main in every binary linking the runtime (kept by the
// -u helion_rt_install_cuda_backend link option of helion_runtime).
const bool kInstalledAtStartup = (installCudaBackend(), true);
} // namespace

} // namespace helion::rt

extern "C" {

void helion_rt_install_cuda_backend(void) { helion::rt::installCudaBackend(); }

const char *helion_rt_last_error(void) { return helion::rt::lastError.c_str(); }

void helion_rt_set_last_error(const char *message) {
  helion::rt::lastError = message ? message : "";
}

int helion_rt_synchronize(void) {
  try {
    helion::rt::synchronize();
    return 0;
  } catch (const std::exception &e) {
    helion::rt::lastError = e.what();
    return -1;
  }
}

void *helion_rt_current_stream(void) { return helion::rt::currentStream(); }

void helion_rt_set_current_stream(void *stream) {
  helion::rt::setCurrentStream(static_cast<CUstream>(stream));
}

int helion_rt_synchronize_stream(void *stream) {
  try {
    helion::rt::synchronize(static_cast<CUstream>(stream));
    return 0;
  } catch (const std::exception &e) {
    helion::rt::lastError = e.what();
    return -1;
  }
}

const char *helion_rt_aot_images(void) {
  thread_local std::string listing;
  listing = helion::rt::aotListing();
  return listing.c_str();
}

int helion_rt_nvrtc_loaded(void) { return helion::rt::nvrtcLoaded() ? 1 : 0; }
}
