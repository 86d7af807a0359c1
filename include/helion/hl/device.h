// Devices and the hook through which the runtime provides device memory.
//
// hl.h itself only knows CPU memory. The runtime (runtime/, linked as
// helion_runtime) installs a DeviceBackend for CUDA when it loads; until then every
// CUDA allocation or copy fails with a clear error instead of a crash.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ostream>

#include "helion/hl/error.h"

namespace helion {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  static constexpr Device cpu() { return Device{DeviceType::CPU, 0}; }
  static constexpr Device cuda(int index = 0) { return Device{DeviceType::CUDA, index}; }
  bool operator==(const Device&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) {
  if (d.type == DeviceType::CPU)
    return os << "cpu";
  return os << "cuda:" << d.index;
}

/// Installed by the runtime for non-CPU devices (the runtime calls set_device_backend
/// at load).
struct DeviceBackend {
  void* (*allocate)(std::size_t bytes, int deviceIndex);
  void (*deallocate)(void* ptr, int deviceIndex);
  void (*copy)(void* dst, Device dstDevice, const void* src, Device srcDevice, std::size_t bytes);
  /// Sets `bytes` bytes to `value` on the device (zeros); null: zeros copies from the host.
  void (*fill)(void* ptr, int deviceIndex, unsigned char value, std::size_t bytes) = nullptr;
};

namespace detail {
/// One slot per DeviceType; an inline variable so that every translation unit (and
/// the runtime library) shares the same registry.
inline std::atomic<const DeviceBackend*> deviceBackends[2] = {nullptr, nullptr};

inline int deviceSlot(DeviceType type) {
  int slot = static_cast<int>(type);
  if (slot < 0 || slot > 1)
    fail("unknown device type {}", slot);
  return slot;
}
} // namespace detail

/// Installs (or, with nullptr, removes) the backend for `type`.
inline void set_device_backend(DeviceType type, const DeviceBackend* backend) {
  detail::deviceBackends[detail::deviceSlot(type)].store(backend);
}

/// The backend installed for `type`, or nullptr.
inline const DeviceBackend* device_backend(DeviceType type) {
  return detail::deviceBackends[detail::deviceSlot(type)].load();
}

namespace detail {
/// The backend for a non-CPU device, or a clear error when no runtime is linked.
inline const DeviceBackend& requireBackend(Device device) {
  const DeviceBackend* backend = device_backend(device.type);
  if (!backend)
    fail("no CUDA runtime loaded: link helion_runtime (needed for a tensor on {})", device);
  return *backend;
}
} // namespace detail
} // namespace helion
