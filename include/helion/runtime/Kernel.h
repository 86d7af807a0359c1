//===- helion/runtime/Kernel.h - loading and launching kernels -*- C++ -*-===//
//
// What generated host code calls:
//
//   static const char kSource[] = R"(#include "helion/device.cuh" ...)";
//   const helion::rt::Kernel& k = helion::rt::loadKernel(
//       {"softmax.cu", kSource, "softmax_kernel<float, 256>", {"--use_fast_math"}});
//   void* args[] = {&x, &out, &n};
//   helion::rt::launch(k, {blocks}, {256}, 0, args);
//
// loadKernel compiles for the current device's architecture through the disk
// cache, loads the module and resolves the function once per process (and
// device); later calls with the same spec return the same Kernel at the cost
// of a hash lookup. Thread-safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Driver.h"

#include <atomic>
#include <string>
#include <vector>

namespace helion::rt {

/// A grid or block shape, as CUDA's dim3.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr Dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};

struct KernelSpec {
  std::string programName;          ///< "softmax.cu": diagnostics and the NVRTC log
  std::string source;               ///< CUDA C++; may include "helion/device.cuh"
  std::string nameExpression;       ///< "softmax_kernel<float, 256>" or an extern "C" name
  std::vector<std::string> options; ///< extra NVRTC options
  /// Dynamic shared memory the kernel will be launched with; above 48 KB the
  /// function's limit is raised at load (launch raises it too when needed).
  int dynamicSharedBytes = 0;
  int device = -1; ///< -1: the calling thread's current device
};

/// A loaded kernel. Owned by the process-wide kernel table; never destroyed
/// before exit, so references stay valid.
class Kernel {
public:
  Kernel(std::string name, std::string loweredName, CUmodule module, CUfunction function,
         int device)
      : name_(std::move(name)), loweredName_(std::move(loweredName)), module_(module),
        function_(function), device_(device) {}

  /// The name expression it was loaded from (what errors print).
  const std::string &name() const { return name_; }
  const std::string &loweredName() const { return loweredName_; }
  CUfunction function() const { return function_; }
  CUmodule module() const { return module_; }
  int device() const { return device_; }

  /// Raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to at least `bytes`.
  void reserveDynamicShared(int bytes) const;

  /// Registers per thread and static shared bytes, for tuner reports.
  int numRegisters() const;
  int staticSharedBytes() const;

  /// Seconds NVRTC took (0 on a cache hit) and whether the cache had it.
  double compileSeconds = 0;
  bool cacheHit = false;

private:
  std::string name_;
  std::string loweredName_;
  CUmodule module_;
  CUfunction function_;
  int device_;
  mutable std::atomic<int> dynamicSharedLimit_{48 * 1024};
};

/// Compiles (through the cache), loads and resolves; memoized per process.
const Kernel &loadKernel(const KernelSpec &spec);

/// Launches on `stream` (0: the legacy default stream) and checks
/// cuLaunchKernel's result; an error names the kernel. `args` points to each
/// parameter's value, in order, as cuLaunchKernel wants.
void launch(const Kernel &kernel, Dim3 grid, Dim3 block, unsigned sharedBytes, void **args,
            CUstream stream = nullptr);

/// Waits for the current device; an asynchronous error (an illegal address...)
/// is reported with the name of the last kernel this process launched.
void synchronize();
void synchronize(CUstream stream);

/// The name of the last kernel launched by this process ("" if none).
std::string lastKernelName();

} // namespace helion::rt
