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
// loadKernel loads the image embedded ahead of time for the current device's
// architecture when the spec has one (KernelSpec::aot, helion/runtime/Aot.h), else
// compiles for that architecture through the disk cache; it loads the module and
// resolves the function once per process (and device); later calls with the same
// spec return the same Kernel at the cost of a hash lookup. Thread-safe. Launches
// go to the calling thread's current stream (helion/runtime/Stream.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/runtime/Aot.h"
#include "helion/runtime/Driver.h"
#include "helion/runtime/Stream.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace helion::rt {

/// A grid or block shape, as CUDA's dim3.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr Dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
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
  /// Images of this program compiled ahead of time (helionc compile --aot-arch), or
  /// null. An image of nameExpression for the device is loaded instead of compiling.
  const AotTable *aot = nullptr;
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
  /// How many blocks of `threads` threads fit on one multiprocessor at once
  /// (registers, shared memory; cuOccupancyMaxActiveBlocksPerMultiprocessor),
  /// at least 1. Queried once per kernel and block size, then an atomic load:
  /// persistent launches size their grid with it on every call.
  int residentBlocksPerSm(int threads) const;

  /// Seconds NVRTC took (0 on a cache hit) and whether the cache had it.
  double compileSeconds = 0;
  bool cacheHit = false;
  /// Loaded from an image embedded ahead of time (no NVRTC involved).
  bool fromAot = false;

private:
  std::string name_;
  std::string loweredName_;
  CUmodule module_;
  CUfunction function_;
  int device_;
  mutable std::atomic<int> dynamicSharedLimit_{48 * 1024};
  mutable std::atomic<std::int64_t> resident_{0}; ///< threads << 32 | blocks
};

/// Loads the embedded image or compiles (through the cache), loads and resolves;
/// memoized per process. Throws with HELIONC_REQUIRE_AOT set and no image.
const Kernel &loadKernel(const KernelSpec &spec);

/// The kernels one launcher of generated code has loaded, keyed by what selects
/// the instantiation: the device, then one integer per template argument (a
/// dtype's enum value, a reduction extent, a vector width...). A hit is
/// lock-free and allocation-free: the steady-state launch path builds no
/// template name and hashes no source. A miss (the first call for a key) builds
/// the name, calls loadKernel and inserts, under a mutex.
///
///   static helion::rt::KernelCache cache; // constant-initialized, never destroyed
///   const std::int64_t key[] = {helion::rt::currentDevice(), int64_t(x.dtype()), vec};
///   const helion::rt::Kernel* k = cache.find(key);
///   if (!k) k = &cache.insert(key, helion::rt::loadKernel({..., nameFrom(key), ...}));
///
/// The first kSlots keys are found by a linear scan of published slots (a call
/// site rarely sees more than a few dtypes and shapes); later ones go to a
/// locked overflow list. Entries are never freed, like the kernels they point to.
/// Keys have any length (a kernel with many tensors has one dtype per tensor).
class KernelCache {
public:
  static constexpr std::size_t kSlots = 16; ///< keys found without a lock

  constexpr KernelCache() = default;
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The kernel inserted for `key`, or null.
  const Kernel *find(const std::int64_t *key, std::size_t size) const;
  template <std::size_t N> const Kernel *find(const std::int64_t (&key)[N]) const {
    return find(key, N);
  }

  /// Records `kernel` for `key` and returns the kernel now recorded for it (the
  /// first one, if another thread inserted the same key meanwhile).
  const Kernel &insert(const std::int64_t *key, std::size_t size, const Kernel &kernel);
  template <std::size_t N>
  const Kernel &insert(const std::int64_t (&key)[N], const Kernel &kernel) {
    return insert(key, N, kernel);
  }

private:
  struct Entry {
    const std::int64_t *key; ///< `size` integers, never freed
    std::size_t size;
    const Kernel *kernel;
    Entry *next; ///< overflow list only
    bool matches(const std::int64_t *k, std::size_t n) const;
  };
  std::atomic<const Entry *> slots_[kSlots] = {};
  std::atomic<std::size_t> used_{0}; ///< published slots (release after the slot's store)
  mutable std::mutex mutex_;         ///< inserts; lookups in the overflow list
  Entry *overflow_ = nullptr;        ///< guarded by mutex_
};

/// Launches on `stream` (by default the calling thread's current stream; nullptr:
/// the legacy default stream) and checks cuLaunchKernel's result; an error names
/// the kernel. `args` points to each parameter's value, in order, as cuLaunchKernel
/// wants. Neither synchronizes nor allocates: launches can be captured in a graph.
void launch(const Kernel &kernel, Dim3 grid, Dim3 block, unsigned sharedBytes, void **args,
            CUstream stream = currentStream());

/// Waits for the current device; an asynchronous error (an illegal address...)
/// is reported with the name of the last kernel this process launched.
void synchronize();
void synchronize(CUstream stream);

/// The name of the last kernel launched by this process ("" if none).
std::string lastKernelName();

/// Threads per block of the last launch by this process (0 if none): tests read it to
/// see which of a kernel's configs ran.
unsigned lastLaunchThreads();

} // namespace helion::rt
