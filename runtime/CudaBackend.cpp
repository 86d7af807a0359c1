//===- CudaBackend.cpp - CUDA memory for helion::Tensor -------------------===//

#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/CApi.h"

#include "DriverApi.h"
#include "helion/runtime/Kernel.h"

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

/// Freed device blocks kept for reuse, per device, as PyTorch's caching
/// allocator does: cuMemFree synchronizes the whole device and cuMemAlloc
/// costs tens of microseconds, so a kernel that allocates its output on every
/// call would otherwise run at a fraction of its speed. Every kernel and copy
/// runs on the legacy default stream, so a block freed after a launch is only
/// reused by work ordered after it. HELION_CUDA_ALLOCATOR=direct turns caching
/// off (for compute-sanitizer runs).
class BlockCache {
public:
  void *allocate(std::size_t bytes, int device) {
    const std::size_t size = roundUp(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto &free = free_[device];
      auto it = free.lower_bound(size);
      // A larger block serves a request only if little of it would be wasted.
      if (it != free.end() && it->first <= size + size / 8) {
        void *ptr = it->second;
        live_[ptr] = it->first;
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
    live_[reinterpret_cast<void *>(ptr)] = size;
    return reinterpret_cast<void *>(ptr);
  }

  /// False when `ptr` did not come from this cache.
  bool free(void *ptr, int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end())
      return false;
    free_[device].emplace(it->second, ptr);
    live_.erase(it);
    return true;
  }

  /// Returns every cached block of `device` to the driver.
  void release(int device) {
    std::multimap<std::size_t, void *> blocks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks.swap(free_[device]);
    }
    if (blocks.empty())
      return;
    useDevice(device);
    for (auto &[size, ptr] : blocks)
      driverApi().cuMemFree(devicePtr(ptr));
  }

private:
  static std::size_t roundUp(std::size_t bytes) {
    constexpr std::size_t kSmall = 512, kLarge = std::size_t(2) << 20;
    const std::size_t unit = bytes < (std::size_t(1) << 20) ? kSmall : kLarge;
    return (bytes + unit - 1) / unit * unit;
  }

  std::mutex mutex_;
  std::map<int, std::multimap<std::size_t, void *>> free_;
  std::unordered_map<void *, std::size_t> live_;
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
  checkCuda(driverApi().cuMemcpyHtoD(devicePtr(dst), src, bytes), copyWhat("to the device", bytes));
}

void cudaCopyToHost(void *dst, const void *src, int srcDevice, std::size_t bytes) {
  if (bytes == 0)
    return;
  useDevice(srcDevice);
  checkCuda(driverApi().cuMemcpyDtoH(dst, devicePtr(src), bytes), copyWhat("to the host", bytes));
}

void cudaCopyDeviceToDevice(void *dst, int dstDevice, const void *src, int srcDevice,
                            std::size_t bytes) {
  if (bytes == 0)
    return;
  if (dstDevice == srcDevice) {
    useDevice(dstDevice);
    checkCuda(driverApi().cuMemcpyDtoD(devicePtr(dst), devicePtr(src), bytes),
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
  checkCuda(driverApi().cuMemsetD8(devicePtr(ptr), value, bytes),
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

const DeviceBackend kCudaBackend = {&cudaAllocate, &cudaFree, &backendCopy};

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
}
