//===- HostEntries.cpp - A kernel's stream overload and C entry ------------===//
#include "HostEntries.h"

#include "CudaLiteral.h"

#include <set>
#include <sstream>

namespace helion::codegen {

using namespace ir;

namespace {

/// The names an entry declares beside the kernel's parameters (which keep the source's
/// names there): `base`, or base_, base__, ... when a parameter or an earlier name of
/// the entry has it, so that a tensor named `result` or `stream` still compiles.
class EntryNames {
public:
  explicit EntryNames(const Kernel& k) {
    for (const Param& p : k.params)
      taken_.insert(p.name);
  }
  std::string fresh(std::string base) {
    while (taken_.count(base))
      base += "_";
    taken_.insert(base);
    return base;
  }

private:
  std::set<std::string> taken_;
};

/// The name the entries call the kernel by (kernelForwarder): the first name an
/// entry's EntryNames hands out, so that its parameters and later names avoid it.
std::string forwarderName(EntryNames& names, const Kernel& k) {
  return names.fresh("helionc_kernel_" + k.name);
}

} // namespace

/// Inside the stream overload and the C entry, a parameter named like the kernel
/// (`Tensor scale(const Tensor& scale)`) hides the kernel, so they call it through
/// this forwarder, defined before them where only the kernel has that name:
///   template <class... T_scale> static decltype(auto) helionc_kernel_scale(
///       T_scale&&... scale_args) { return (scale)(static_cast<T_scale&&>(scale_args)...); }
/// Its own names are the kernel's with a prefix or suffix, so never the kernel's; the
/// parentheses keep argument-dependent lookup from adding helion's functions.
std::string kernelForwarder(const HostKernel& hk) {
  const Kernel& k = *hk.kernel;
  EntryNames names(k);
  const std::string types = "T_" + k.name, args = k.name + "_args";
  std::ostringstream os;
  os << "\n\n// helionc: '" << k.name << "' for its entries below, where a parameter may have "
     << "its name (generated, do not edit)\n";
  os << "template <class... " << types << ">\nstatic decltype(auto) " << forwarderName(names, k)
     << "(" << types << "&&... " << args << ") {\n  return (" << k.name << ")(static_cast<"
     << types << "&&>(" << args << ")...);\n}";
  return os.str();
}

/// What the C entries share: borrowing a DLTensor as a helion::Tensor, and turning
/// a result or an exception into the C convention (0, or -1 and the last error).
const char* const kCApiHelpers = R"(#ifdef HELIONC_C_API
#include <helion/runtime/CApiGlue.h>
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
  EntryNames names(k);
  const std::string kernel = forwarderName(names, k);
  const std::string result = names.fresh("result"), stream = names.fresh("stream");
  std::string params, borrows, args;
  for (const Param& p : k.params) {
    if (p.captured)
      continue;
    params += (params.empty() ? "" : ", ");
    args += (args.empty() ? "" : ", ");
    if (p.kind == Param::Kind::Tensor) {
      // A named local, so that a `Tensor&` parameter (an output) binds to it too.
      const std::string borrowed = names.fresh("helionc_" + p.name);
      params += "const helion::DLTensor* " + p.name;
      borrows += "    helion::Tensor " + borrowed + " = helionc_c_api::borrow(" + p.name +
                 ", \"" + p.name + "\");\n";
      args += borrowed;
    } else {
      params += cppScalarType(p.scalarType) + " " + p.name;
      args += p.name;
    }
  }
  os << "\n#ifdef HELIONC_C_API\n";
  os << "// helionc: C entry of kernel '" << k.name << "' (generated, do not edit)\n";
  os << "extern \"C\" int helionc_" << k.name << "(" << params << (params.empty() ? "" : ", ")
     << "helion::DLManagedTensor** " << result << ", void* " << stream << ") {\n";
  os << "  return helionc_c_api::call(\"helionc_" << k.name << "\", " << result << ", "
     << stream << ", [&] {\n"
     << borrows << "    return " << kernel << "(" << args << ");\n  });\n";
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
  EntryNames names(k);
  const std::string kernel = forwarderName(names, k);
  const std::string stream = names.fresh("helionc_stream");
  std::ostringstream os;
  os << "\n\n// helionc: '" << k.name << "' on a given stream (generated, do not edit)\n";
  os << text.substr(h.function.begin, h.params.begin - h.function.begin)
     << (none ? "" : params + ", ") << "CUstream " << stream
     << text.substr(h.params.end, h.body.begin - h.params.end) << "{\n";
  os << "  helion::rt::StreamGuard " << names.fresh("helionc_on_stream") << "(" << stream
     << ");\n";
  os << "  return " << kernel << "(" << args << ");\n}\n";
  return os.str();
}

} // namespace helion::codegen
