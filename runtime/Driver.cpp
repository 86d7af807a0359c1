//===- Driver.cpp - libcuda.so.1 loaded at run time -----------------------===//

#include "helion/runtime/Driver.h"

#include "DriverApi.h"

#include <dlfcn.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace helion::rt {
namespace detail {
namespace {

/// Loads once; a failure is remembered and rethrown on every later call.
struct LoadedDriver {
  DriverApi api;
  std::string failure; // empty when usable
  int failureCode = -1;

  LoadedDriver() {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = dlerror();
      failure = std::string("helion: loading the CUDA driver: libcuda.so.1 could not be loaded") +
                (why ? std::string(" (") + why + ")" : std::string()) +
                "; is an NVIDIA driver installed?";
      return;
    }
#define HELION_RESOLVE_ENTRY_POINT(member, symbol)                                                 \
  api.member = reinterpret_cast<decltype(api.member)>(dlsym(handle, #symbol));                     \
  if (!api.member) {                                                                               \
    failure = "helion: loading the CUDA driver: libcuda.so.1 has no entry point " #symbol          \
              " (driver too old?)";                                                                \
    return;                                                                                        \
  }
    HELION_DRIVER_ENTRY_POINTS(HELION_RESOLVE_ENTRY_POINT)
#undef HELION_RESOLVE_ENTRY_POINT
    CUresult result = api.cuInit(0);
    if (result != CUDA_SUCCESS) {
      failure = "helion: initializing the CUDA driver (cuInit): " + cudaErrorText(result);
      failureCode = result;
    }
  }
};

LoadedDriver &loadedDriver() {
  static LoadedDriver driver; // thread-safe initialization
  return driver;
}

} // namespace

const DriverApi &driverApi() {
  LoadedDriver &driver = loadedDriver();
  if (!driver.failure.empty())
    throw CudaError(driver.failure, driver.failureCode);
  return driver.api;
}

} // namespace detail

using detail::driverApi;

bool driverAvailable() { return detail::loadedDriver().failure.empty(); }

void requireDriver() { (void)driverApi(); }

std::string cudaErrorText(CUresult result) {
  const detail::DriverApi &api = detail::loadedDriver().api;
  const char *name = nullptr;
  const char *text = nullptr;
  if (api.cuGetErrorName)
    api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

void checkCuda(CUresult result, std::string_view what) {
  if (result == CUDA_SUCCESS)
    return;
  throw CudaError("helion: " + std::string(what) + ": " + cudaErrorText(result), result);
}

int deviceCount() {
  int count = 0;
  checkCuda(driverApi().cuDeviceGetCount(&count), "counting CUDA devices");
  return count;
}

namespace {
thread_local int tlsDevice = 0;

/// Per device, published once under the mutex and read without it afterwards:
/// useDevice and deviceInfo run on every launch.
constexpr int kMaxDevices = 64;
struct Devices {
  std::mutex mutex;                                        // first use of a device
  std::atomic<CUcontext> contexts[kMaxDevices] = {};       // primary contexts, retained once
  std::atomic<const DeviceInfo *> infos[kMaxDevices] = {}; // leaked: live until exit
};

Devices &devices() {
  static Devices d;
  return d;
}

CUdevice cuDevice(int device) {
  int count = deviceCount();
  if (device < 0 || device >= count)
    throw CudaError("helion: selecting CUDA device " + std::to_string(device) +
                        ": expected an index below " + std::to_string(count),
                    CUDA_ERROR_INVALID_DEVICE);
  CUdevice dev = 0;
  checkCuda(driverApi().cuDeviceGet(&dev, device), "getting CUDA device " + std::to_string(device));
  return dev;
}

int attribute(CUdevice dev, CUdevice_attribute attr, const char *what) {
  int value = 0;
  checkCuda(driverApi().cuDeviceGetAttribute(&value, attr, dev),
            std::string("querying the device's ") + what);
  return value;
}
} // namespace

int currentDevice() { return tlsDevice; }

void setDevice(int device) {
  useDevice(device);
  tlsDevice = device;
}

namespace {
/// Throws unless 0 <= device < deviceCount(), and past the table's size.
CUdevice checkedDevice(int device) {
  CUdevice dev = cuDevice(device);
  if (device >= kMaxDevices)
    throw CudaError("helion: selecting CUDA device " + std::to_string(device) +
                        ": the runtime supports devices 0 to " + std::to_string(kMaxDevices - 1),
                    CUDA_ERROR_INVALID_DEVICE);
  return dev;
}

CUcontext primaryContext(int device) {
  Devices &d = devices();
  if (static_cast<unsigned>(device) < kMaxDevices)
    if (CUcontext ctx = d.contexts[device].load(std::memory_order_acquire))
      return ctx;
  CUdevice dev = checkedDevice(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  if (CUcontext ctx = d.contexts[device].load(std::memory_order_relaxed))
    return ctx;
  CUcontext ctx = nullptr;
  checkCuda(driverApi().cuDevicePrimaryCtxRetain(&ctx, dev),
            "retaining the primary context of device " + std::to_string(device));
  d.contexts[device].store(ctx, std::memory_order_release);
  return ctx;
}
} // namespace

CUcontext useDevice(int device) {
  const detail::DriverApi &api = driverApi();
  CUcontext ctx = primaryContext(device);
  // Asked each time rather than cached per thread: other code on this thread
  // (the CUDA runtime, PyTorch) may have switched contexts since.
  CUcontext current = nullptr;
  checkCuda(api.cuCtxGetCurrent(&current), "querying the current CUDA context");
  if (current != ctx)
    checkCuda(api.cuCtxSetCurrent(ctx),
              "making device " + std::to_string(device) + "'s context current");
  return ctx;
}

const DeviceInfo &deviceInfo(int device) {
  Devices &d = devices();
  if (static_cast<unsigned>(device) < kMaxDevices)
    if (const DeviceInfo *info = d.infos[device].load(std::memory_order_acquire))
      return *info;
  CUdevice dev = checkedDevice(device);
  std::lock_guard<std::mutex> lock(d.mutex);
  if (const DeviceInfo *info = d.infos[device].load(std::memory_order_relaxed))
    return *info;
  auto info = std::make_unique<DeviceInfo>();
  const detail::DriverApi &api = driverApi();
  info->index = device;
  char name[256] = {};
  checkCuda(api.cuDeviceGetName(name, sizeof(name) - 1, dev), "querying the device's name");
  info->name = name;
  info->major = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  info->minor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  info->smCount = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count");
  info->maxSharedPerBlock =
      attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared memory per block");
  info->maxSharedPerBlockOptin = attribute(
      dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "opt-in shared memory per block");
  info->l2Bytes = attribute(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  info->maxThreadsPerBlock =
      attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads per block");
  std::size_t bytes = 0;
  checkCuda(api.cuDeviceTotalMem(&bytes, dev), "querying the device's memory size");
  info->totalMemory = bytes;
  d.infos[device].store(info.get(), std::memory_order_release);
  return *info.release();
}

std::string archFor(int major, int minor) {
  std::string arch = "sm_" + std::to_string(major * 10 + minor);
  // The arch-specific variants exist for 9.0 and 10.0; code built for them
  // runs only on exactly that capability, which is the device we compile for.
  if ((major == 9 || major == 10) && minor == 0)
    arch += 'a';
  return arch;
}

std::string archFor(int device) {
  const DeviceInfo &info = deviceInfo(device);
  return archFor(info.major, info.minor);
}

} // namespace helion::rt
