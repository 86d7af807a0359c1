// helion::Tensor: a shared handle to strided memory on the CPU or a device, plus the
// host allocation functions (empty, empty_like, zeros).
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <vector>

#include "helion/hl/device.h"
#include "helion/hl/dtype.h"
#include "helion/hl/error.h"

namespace helion {
namespace hl {
class TensorRef;
} // namespace hl

/// A handle to memory: sizes and strides in elements, a dtype and a device. Copies
/// share the memory (like torch.Tensor); the memory goes when the last copy does.
/// A default-constructed Tensor is undefined (defined() is false).
class Tensor {
public:
  Tensor() = default;

  /// Wraps memory that the tensor does not own; `strides` empty means contiguous.
  static Tensor from_blob(void* data, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                          DType dtype, Device device = Device::cpu());
  /// Wraps memory and takes ownership of it: `deleter(data)` runs when the last handle
  /// goes.
  static Tensor from_blob(void* data, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                          DType dtype, Device device, std::function<void(void*)> deleter);

  bool defined() const { return defined_; }
  /// The first element (the storage offset is already applied).
  void* data_ptr() const { return data_; }
  /// Typed access; throws when T does not match dtype(), e.g. data_ptr<float>() on f16.
  template <class T> T* data_ptr() const {
    if (dtype_ != detail::DTypeOf<T>::value)
      detail::fail("data_ptr<{}>() called on a tensor of dtype {}", detail::DTypeOf<T>::value,
                   dtype_);
    return static_cast<T*>(data_);
  }

  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  /// Size of dimension `i`; negative `i` counts from the end as in PyTorch.
  int64_t size(int64_t i) const { return sizes_[wrapDim(i, "size")]; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  int64_t stride(int64_t i) const { return strides_[wrapDim(i, "stride")]; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t numel() const;
  int64_t element_size() const { return helion::element_size(dtype_); }
  bool is_contiguous() const;

  /// The sizes as an array for structured bindings: `auto [m, n] = x.shape<2>();`.
  template <size_t N> std::array<int64_t, N> shape() const {
    if (static_cast<size_t>(dim()) != N)
      detail::fail("shape<{}>() called on a tensor of rank {}", N, dim());
    std::array<int64_t, N> out{};
    for (size_t i = 0; i < N; ++i)
      out[i] = sizes_[i];
    return out;
  }

  /// A copy on `device` (this tensor itself when it is already there).
  Tensor to(Device device) const;
  Tensor cpu() const { return to(Device::cpu()); }
  /// This tensor when contiguous, else a contiguous copy.
  Tensor contiguous() const;

  /// Device-code subscript: `x[tm, hl::all]`, `out[tile] = v`, `w[idx[tb], te]`.
  /// Each argument is a Tile, an integer, hl::all, hl::newaxis, an integer Block
  /// (a gather) or an N-D tile; missing trailing dims mean hl::all. The result is a
  /// loaded value block that stores when assigned as a temporary (see TensorRef).
  template <class... Index> hl::TensorRef operator[](const Index&... index) const;

private:
  friend Tensor empty(const std::vector<int64_t>& sizes, DType dtype, Device device);
  int64_t wrapDim(int64_t i, const char* what) const {
    int64_t rank = dim();
    if (i < -rank || i >= rank)
      detail::fail("{}({}) called on a tensor of rank {}", what, i, rank);
    return i < 0 ? i + rank : i;
  }

  std::shared_ptr<void> owner_;  // keeps the memory alive; may differ from data_
  void* data_ = nullptr;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  DType dtype_ = DType::f32;
  Device device_;
  bool defined_ = false;
};

namespace detail {

inline std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * (sizes[i] > 1 ? sizes[i] : 1);
  return strides;
}

/// Product of sizes, with the checks that keep a bad size from becoming a huge
/// allocation: no negative sizes, no overflow.
inline int64_t checkedNumel(const std::vector<int64_t>& sizes, const char* what) {
  int64_t n = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      fail("{}: negative size {} in dimension {}", what, sizes[i], i);
    if (sizes[i] != 0 && n > std::numeric_limits<int64_t>::max() / sizes[i])
      fail("{}: sizes {} overflow int64", what, sizes);
    n *= sizes[i];
  }
  return n;
}

} // namespace detail

inline int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes_)
    n *= s;
  return n;
}

inline bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1)
      continue;
    if (sizes_[i] == 0)
      return true;
    if (strides_[i] != expected)
      return false;
    expected *= sizes_[i];
  }
  return true;
}

inline Tensor Tensor::from_blob(void* data, std::vector<int64_t> sizes,
                                std::vector<int64_t> strides, DType dtype, Device device,
                                std::function<void(void*)> deleter) {
  int64_t n = detail::checkedNumel(sizes, "from_blob");
  if (strides.empty())
    strides = detail::contiguousStrides(sizes);
  if (strides.size() != sizes.size())
    detail::fail("from_blob: {} strides given for {} sizes", strides.size(), sizes.size());
  if (data == nullptr && n > 0)
    detail::fail("from_blob: null data for a tensor of {} elements", n);
  Tensor t;
  if (deleter)
    t.owner_ = std::shared_ptr<void>(data, std::move(deleter));
  t.data_ = data;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.dtype_ = dtype;
  t.device_ = device;
  t.defined_ = true;
  return t;
}

inline Tensor Tensor::from_blob(void* data, std::vector<int64_t> sizes,
                                std::vector<int64_t> strides, DType dtype, Device device) {
  return from_blob(data, std::move(sizes), std::move(strides), dtype, device, nullptr);
}

/// A new contiguous tensor. On the CPU (ref mode) the contents are poisoned (NaN for
/// floats, -1 for integers, false for b8) so that a kernel that forgets to write an
/// element shows it; on CUDA the memory comes from the runtime's backend.
inline Tensor empty(const std::vector<int64_t>& sizes, DType dtype, Device device = Device::cpu()) {
  int64_t n = detail::checkedNumel(sizes, "empty");
  auto bytes = static_cast<size_t>(n * element_size(dtype));
  Tensor t;
  if (device.type == DeviceType::CPU) {
    // 64-byte alignment, as vector loads on the device side would want.
    void* p = ::operator new(bytes ? bytes : 1, std::align_val_t(64));
    t.owner_ = std::shared_ptr<void>(p, [](void* q) { ::operator delete(q, std::align_val_t(64)); });
    std::memset(p, dtype == DType::b8 ? 0 : 0xFF, bytes);
    t.data_ = p;
  } else {
    const DeviceBackend* backend = &detail::requireBackend(device);
    void* p = bytes ? backend->allocate(bytes, device.index) : nullptr;
    if (bytes && !p)
      detail::fail("empty: allocating {} bytes on {} failed", bytes, device);
    int index = device.index;
    t.owner_ = std::shared_ptr<void>(p, [backend, index](void* q) {
      if (q)
        backend->deallocate(q, index);
    });
    t.data_ = p;
  }
  t.sizes_ = sizes;
  t.strides_ = detail::contiguousStrides(sizes);
  t.dtype_ = dtype;
  t.device_ = device;
  t.defined_ = true;
  return t;
}

/// A new contiguous tensor with the sizes, dtype and device of `t`.
inline Tensor empty_like(const Tensor& t) {
  if (!t.defined())
    detail::fail("empty_like: the tensor is undefined");
  return empty(t.sizes(), t.dtype(), t.device());
}

/// A new contiguous tensor of zeros.
inline Tensor zeros(const std::vector<int64_t>& sizes, DType dtype, Device device = Device::cpu()) {
  Tensor t = empty(sizes, dtype, device);
  size_t bytes = static_cast<size_t>(t.numel() * t.element_size());
  if (device.type == DeviceType::CPU) {
    std::memset(t.data_ptr(), 0, bytes);
  } else if (bytes) {
    const DeviceBackend& backend = detail::requireBackend(device);
    if (backend.fill) { // on the device (the CUDA backend: a memset on the current stream)
      backend.fill(t.data_ptr(), device.index, 0, bytes);
      return t;
    }
    std::vector<unsigned char> zero(bytes, 0);
    backend.copy(t.data_ptr(), device, zero.data(), Device::cpu(), bytes);
  }
  return t;
}

inline Tensor Tensor::contiguous() const {
  if (!defined_ || is_contiguous())
    return *this;
  if (device_.type != DeviceType::CPU)
    detail::fail("contiguous(): a non-contiguous tensor on {} must be made contiguous on the "
                 "device by the runtime",
                 device_);
  Tensor out = empty(sizes_, dtype_, device_);
  const int64_t esize = element_size();
  const int64_t n = numel();
  std::vector<int64_t> index(sizes_.size(), 0);
  auto* dst = static_cast<unsigned char*>(out.data_ptr());
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides_[d];
    std::memcpy(dst + k * esize, static_cast<const unsigned char*>(data_) + offset * esize, esize);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < sizes_[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

inline Tensor Tensor::to(Device device) const {
  if (!defined_)
    detail::fail("to({}): the tensor is undefined", device);
  if (device == device_)
    return *this;
  const DeviceBackend& backend =
      detail::requireBackend(device.type == DeviceType::CPU ? device_ : device);
  if (!is_contiguous() && device_.type != DeviceType::CPU)
    detail::fail("to({}): the source on {} is not contiguous", device, device_);
  Tensor src = contiguous();
  Tensor out = empty(sizes_, dtype_, device);
  auto bytes = static_cast<size_t>(numel() * element_size());
  if (bytes)
    backend.copy(out.data_ptr(), device, src.data_ptr(), device_, bytes);
  return out;
}

} // namespace helion
