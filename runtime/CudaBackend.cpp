//===- CudaBackend.cpp - CUDA memory for helion::Tensor -------------------===//

#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/CApi.h"

#include "DriverApi.h"
#include "helion/runtime/Kernel.h"

#include <cstring>
#include <string>
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

void *cudaAllocate(std::size_t bytes, int device) {
  if (bytes == 0)
    return nullptr;
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
