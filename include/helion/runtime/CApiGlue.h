//===- helion/runtime/CApiGlue.h - What generated C entries call -*- C++ -*-===//
//
// The C entries helionc writes for each kernel (`extern "C" int helionc_<kernel>(...)`,
// compiled with HELIONC_C_API defined; docs/calling-kernels.md) borrow their DLTensor
// arguments as helion::Tensor (borrow) and run the kernel through call(): on the
// caller's stream, with the result exported through DLPack (a Tensor, or a pair or
// tuple of Tensors as result[0..N-1]) and every exception turned into -1 and
// helion_rt_last_error().
//===----------------------------------------------------------------------===//
#pragma once

#include <helion/hl/dlpack.h>
#include <helion/runtime/CApi.h>
#include <helion/runtime/Stream.h>

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace helionc_c_api {
template <class T> struct TensorTuple : std::false_type {};
template <class... T> struct TensorTuple<std::tuple<T...>>
    : std::bool_constant<(std::is_same_v<T, helion::Tensor> && ...)> {};
template <class A, class B> struct TensorTuple<std::pair<A, B>>
    : std::bool_constant<std::is_same_v<A, helion::Tensor> && std::is_same_v<B, helion::Tensor>> {};
inline helion::Tensor borrow(const helion::DLTensor* t, const char* name) {
  if (!t)
    throw std::invalid_argument(std::string("tensor '") + name + "' is null");
  const bool cuda = t->device.device_type == helion::DLDeviceType::kDLCUDA;
  if (!cuda && t->device.device_type != helion::DLDeviceType::kDLCPU)
    throw std::invalid_argument(std::string("tensor '") + name + "': unsupported device type");
  if (t->ndim < 0 || (t->ndim > 0 && !t->shape))
    throw std::invalid_argument(std::string("tensor '") + name + "': bad shape");
  std::vector<int64_t> sizes(t->shape, t->shape + t->ndim);
  std::vector<int64_t> strides;
  if (t->strides)
    strides.assign(t->strides, t->strides + t->ndim);
  return helion::Tensor::from_blob(static_cast<char*>(t->data) + t->byte_offset, sizes, strides,
                                   helion::detail::fromDLDataType(t->dtype),
                                   cuda ? helion::Device::cuda(t->device.device_id)
                                        : helion::Device::cpu());
}
template <class F>
int call(const char* entry, helion::DLManagedTensor** result, void* stream, F&& f) {
  try {
    helion::rt::StreamGuard onStream(static_cast<CUstream>(stream));
    using R = std::invoke_result_t<F&>;
    if (result)
      *result = nullptr;
    if constexpr (std::is_void_v<R>) {
      f();
    } else if constexpr (std::is_same_v<std::decay_t<R>, helion::Tensor>) {
      if (!result)
        throw std::invalid_argument("null result pointer");
      helion::Tensor out = f();
      *result = helion::to_dlpack(out);
    } else if constexpr (TensorTuple<std::decay_t<R>>::value) {
      // N tensors (a std::pair or std::tuple): result[0..N-1], in order.
      if (!result)
        throw std::invalid_argument("null result pointer");
      auto outs = f();
      std::apply([&](auto&... t) {
        std::size_t i = 0;
        ((result[i++] = helion::to_dlpack(t)), ...);
      }, outs);
    } else {
      throw std::invalid_argument("the C API returns a Tensor, a pair or tuple of Tensors, or "
                                  "nothing");
    }
    return 0;
  } catch (const std::exception& e) {
    helion_rt_set_last_error((std::string(entry) + ": " + e.what()).c_str());
  } catch (...) {
    helion_rt_set_last_error((std::string(entry) + ": unknown exception").c_str());
  }
  return -1;
}
} // namespace helionc_c_api
