//===- HostEntries.cpp - A kernel's stream overload and C entry ------------===//
#include "HostEntries.h"

#include "CudaLiteral.h"

#include <sstream>

namespace helion::codegen {

using namespace ir;

/// What the C entries share: borrowing a DLTensor as a helion::Tensor, and turning
/// a result or an exception into the C convention (0, or -1 and the last error).
const char* const kCApiHelpers = R"(#ifdef HELIONC_C_API
#include <helion/hl/dlpack.h>
#include <helion/runtime/CApi.h>
#include <exception>
#include <type_traits>
#include <tuple>
#include <utility>
#ifndef HELIONC_C_API_HELPERS
#define HELIONC_C_API_HELPERS
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
#endif
#endif
)";

/// The C entry of a kernel, after its definition (so in its namespace):
///   extern "C" int helionc_softmax(const DLTensor* x, DLManagedTensor** result,
///                                  void* stream);
/// Tensors are borrowed DLTensors, scalars come by value; a Tensor result is
/// exported with helion::to_dlpack (the caller runs its deleter). The kernel runs
/// on `stream` (a CUstream / cudaStream_t; NULL: the legacy default stream), which
/// is current during the call. Returns 0, or -1 with the message in
/// helion_rt_last_error(). Compiled only with HELIONC_C_API defined: two such files
/// included into one translation unit (in different namespaces) would otherwise
/// define the same extern "C" symbol twice.
std::string cEntry(const HostKernel& hk) {
  const Kernel& k = *hk.kernel;
  std::ostringstream os;
  std::string params, borrows, args;
  for (const Param& p : k.params) {
    if (p.captured)
      continue;
    params += (params.empty() ? "" : ", ");
    args += (args.empty() ? "" : ", ");
    if (p.kind == Param::Kind::Tensor) {
      // A named local, so that a `Tensor&` parameter (an output) binds to it too.
      params += "const helion::DLTensor* " + p.name;
      borrows += "    helion::Tensor helionc_" + p.name + " = helionc_c_api::borrow(" + p.name +
                 ", \"" + p.name + "\");\n";
      args += "helionc_" + p.name;
    } else {
      params += cppScalarType(p.scalarType) + " " + p.name;
      args += p.name;
    }
  }
  os << "\n#ifdef HELIONC_C_API\n";
  os << "// helionc: C entry of kernel '" << k.name << "' (generated, do not edit)\n";
  os << "extern \"C\" int helionc_" << k.name << "(" << params << (params.empty() ? "" : ", ")
     << "helion::DLManagedTensor** result, void* stream) {\n";
  os << "  return helionc_c_api::call(\"helionc_" << k.name << "\", result, stream, [&] {\n"
     << borrows << "    return " << k.name << "(" << args << ");\n  });\n";
  os << "}\n#endif\n";
  return os.str();
}

std::string streamOverload(const HostKernel& hk, const std::string& text) {
  const frontend::HostInfo& h = *hk.host;
  const Kernel& k = *hk.kernel;
  if (h.params.end < h.params.begin || h.body.begin < h.params.end || h.body.begin > text.size())
    return ""; // no parameter list recorded: no overload
  // The parameters as written, less their default arguments: the overload takes them all.
  std::string params;
  size_t at = h.params.begin;
  for (const frontend::HostRegion& d : h.defaultArgs) {
    params.append(text, at, d.begin - at);
    at = d.end;
  }
  params.append(text, at, h.params.end - at);
  const size_t first = params.find_first_not_of(" \t\r\n");
  const bool none = first == std::string::npos || params.substr(first, 4) == "void";
  std::string args;
  for (const Param& p : k.params)
    if (!p.captured)
      args += (args.empty() ? "" : ", ") + p.name;
  std::ostringstream os;
  os << "\n\n// helionc: '" << k.name << "' on a given stream (generated, do not edit)\n";
  os << text.substr(h.function.begin, h.params.begin - h.function.begin)
     << (none ? "" : params + ", ") << "CUstream helionc_stream"
     << text.substr(h.params.end, h.body.begin - h.params.end) << "{\n";
  os << "  helion::rt::StreamGuard helionc_on_stream(helionc_stream);\n";
  os << "  return " << k.name << "(" << args << ");\n}\n";
  return os.str();
}

} // namespace helion::codegen
