//===- KernelCacheLookup.h - A launcher's kernel lookup as C++ --*- C++ -*-===//
//
// Generated launchers find their kernel by a key of integers in a function-local
// helion::rt::KernelCache: the device, then one integer per thing that selects the
// instantiation (a dtype's enum value, a template int, the sm90/sm80 choice). A
// launch of a loaded instantiation takes no lock, allocates nothing and builds no
// template name; the name is built from the key only on a miss:
//
//   const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
//       static_cast<std::int64_t>(x.dtype())};
//   static helion::rt::KernelCache kernelCache;
//   const helion::rt::Kernel* found = kernelCache.find(kernelKey);
//   if (!found) {
//     std::string name = "softmax_kernel<";
//     name += helion::rt::deviceTypeName(static_cast<helion::DType>(kernelKey[1]));
//     name += ">";
//     found = &kernelCache.insert(kernelKey, helion::rt::loadKernel({"softmax.cpp.cu",
//                                                                   kSource, name, {}}));
//   }
//
// Shared by the memory-bound launcher (HostRewriter.cpp) and the matmul one.
//===----------------------------------------------------------------------===//
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace helion::codegen {

class KernelCacheLookup {
public:
  /// Adds `expr` (host C++ of an integer) to the key and returns its slot,
  /// `kernelKey[i]`: for a key that is no template argument (the sm90 choice).
  std::string key(std::string expr) {
    keys_.push_back(std::move(expr));
    return "kernelKey[" + std::to_string(keys_.size() - 1) + "]";
  }
  /// The next template argument of the name is the dtype of `tensor`.
  void dtypeArg(const std::string& tensor) {
    std::string slot = key("static_cast<std::int64_t>(" + tensor + ".dtype())");
    nameArgs_.push_back("helion::rt::deviceTypeName(static_cast<helion::DType>(" + slot + "))");
  }
  /// The next template argument of the name is the integer `expr`.
  void intArg(std::string expr) {
    nameArgs_.push_back("std::to_string(" + key(std::move(expr)) + ")");
  }

  /// The statements that leave `found` pointing to the kernel: the key, the cache,
  /// find, and on a miss the name, loadKernel and insert. `nameHead` is a C++
  /// expression of the name up to its '<'; `loadSpec` the KernelSpec fields after
  /// the name (`{}`: no options).
  std::string emit(const std::string& nameHead, const std::string& fileName,
                   const std::string& loadSpec) const {
    std::ostringstream os;
    os << "  const std::int64_t kernelKey[] = {";
    for (size_t i = 0; i < keys_.size(); ++i)
      os << (i ? ",\n      " : "") << keys_[i];
    os << "};\n";
    os << "  static helion::rt::KernelCache kernelCache;\n";
    os << "  const helion::rt::Kernel* found = kernelCache.find(kernelKey);\n";
    os << "  if (!found) {\n";
    os << "    std::string name = " << nameHead << ";\n";
    for (size_t i = 0; i < nameArgs_.size(); ++i)
      os << (i ? "    name += \", \";\n" : "") << "    name += " << nameArgs_[i] << ";\n";
    os << "    name += \">\";\n";
    os << "    found = &kernelCache.insert(kernelKey, helion::rt::loadKernel({\"" << fileName
       << ".cu\", kSource, name, " << loadSpec << "}));\n";
    os << "  }\n";
    return os.str();
  }

private:
  std::vector<std::string> keys_ = {"helion::rt::currentDevice()"};
  std::vector<std::string> nameArgs_; ///< C++ appending each template argument, in order
};

} // namespace helion::codegen
