//===- helion/runtime/CudaBackend.h - CUDA memory for helion::Tensor -*- C++ -*-===//
//
// helion::Tensor (include/helion/hl.h) allocates, fills and copies through a
// backend per device type. This one uses cuMemAlloc / cuMemFree / cuMemcpy*Async /
// cuMemsetD8Async of the loaded driver on the calling thread's current stream
// (helion/runtime/Stream.h): fills and copies to the device are ordered with the
// kernels on that stream (and can be captured in a graph), a copy to the host
// waits for the stream. So
//   Tensor x = helion::empty({m, n}, hl::f32, helion::Device::cuda());
//   Tensor y = x.to(helion::Device::cpu());
// work. Linking helion_runtime installs it before main (a static initializer
// the link keeps with -u helion_rt_install_cuda_backend); loadKernel installs
// it too. Installing touches no driver: a binary starts without one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

namespace helion::rt {

/// Registers the CUDA backend with helion::set_device_backend unless a CUDA
/// backend is already installed; idempotent.
void installCudaBackend();

/// The backend's operations, callable directly (device = CUDA device index).
void *cudaAllocate(std::size_t bytes, int device);
/// Freed blocks are cached per device and stream and reused by later allocations of
/// about the same size on the stream current when the block was allocated (set
/// HELION_CUDA_ALLOCATOR=direct for plain cuMemAlloc/Free).
void cudaFree(void *ptr, int device);
/// Returns the cached free blocks of `device` to the driver.
void cudaEmptyCache(int device);
/// Copies on the current stream: host -> device (from pageable memory, as helion's
/// CPU tensors are, the host bytes may be reused at once), device -> host (returns
/// when the bytes are there), device -> device.
void cudaCopyToDevice(void *dst, int dstDevice, const void *src, std::size_t bytes);
void cudaCopyToHost(void *dst, const void *src, int srcDevice, std::size_t bytes);
void cudaCopyDeviceToDevice(void *dst, int dstDevice, const void *src, int srcDevice,
                            std::size_t bytes);
/// Sets `bytes` bytes at `ptr` to `value` on the current stream (helion::zeros,
/// poisoning outputs before a test run).
void cudaMemset(void *ptr, int device, unsigned char value, std::size_t bytes);

} // namespace helion::rt
