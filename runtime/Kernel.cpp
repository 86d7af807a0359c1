//===- Kernel.cpp - loading and launching kernels -------------------------===//

#include "helion/runtime/Kernel.h"

#include "CompileCache.h"
#include "DriverApi.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/CudaBackend.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace helion::rt {
namespace {

using detail::driverApi;

struct KernelTable {
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<Kernel>> kernels;
};

KernelTable &kernelTable() {
  static KernelTable *table = new KernelTable; // leaked: kernels outlive static destructors
  return *table;
}

/// The last kernel launched; kernels are never destroyed, so the pointer stays
/// valid. An atomic rather than a locked string: launch() is the hot path.
std::atomic<const Kernel *> lastKernel{nullptr};
std::atomic<unsigned> lastThreads{0};

std::string kernelKey(const KernelSpec &spec, int device) {
  detail::KeyHasher hasher;
  hasher.add(spec.programName).add(spec.source).add(spec.nameExpression);
  for (const std::string &option : spec.options)
    hasher.add(option);
  hasher.add(std::to_string(device));
  return hasher.hex();
}

std::unique_ptr<Kernel> moduleKernel(const KernelSpec &spec, int device, const void *image,
                                     const std::string &lowered) {
  const std::string what = "loading kernel '" + spec.nameExpression + "' from " + spec.programName;
  const detail::DriverApi &api = driverApi();
  CUmodule module = nullptr;
  checkCuda(api.cuModuleLoadData(&module, image), what);
  CUfunction function = nullptr;
  checkCuda(api.cuModuleGetFunction(&function, module, lowered.c_str()), what);
  auto kernel = std::make_unique<Kernel>(spec.nameExpression, lowered, module, function, device);
  if (spec.dynamicSharedBytes > 0)
    kernel->reserveDynamicShared(spec.dynamicSharedBytes);
  return kernel;
}

/// The HELIONC_REQUIRE_AOT error: what is missing, and what is embedded instead.
[[noreturn]] void throwMissingImage(const KernelSpec &spec, const std::string &arch,
                                    const DeviceInfo &info) {
  std::string message = "helion: HELIONC_REQUIRE_AOT is set and kernel '" + spec.nameExpression +
                        "' of " + spec.programName + " has no embedded image for " + arch +
                        " (compute capability " + std::to_string(info.major) + "." +
                        std::to_string(info.minor) + ")";
  if (!spec.aot || spec.aot->count == 0) {
    message += "; this launcher embeds no images (compile it with helionc compile --aot-arch " +
               arch + ")";
  } else {
    std::vector<std::string> archs;
    for (std::size_t i = 0; i < spec.aot->count; ++i)
      if (std::find(archs.begin(), archs.end(), spec.aot->images[i].arch) == archs.end())
        archs.push_back(spec.aot->images[i].arch);
    message += "; it embeds " + std::to_string(spec.aot->count) + " images for";
    for (const std::string &a : archs)
      message += " " + a;
    message += ", e.g. '" + std::string(spec.aot->images[0].name) +
               "' (add this call's dtypes and sizes with --dtype, --size-hint or --specialize, and " +
               arch + " with --aot-arch)";
  }
  if (!environmentOptions().empty())
    message += "; embedded images are not used while HELIONC_NVRTC_OPTIONS is set";
  throw std::runtime_error(message);
}

std::unique_ptr<Kernel> buildKernel(const KernelSpec &spec, int device) {
  useDevice(device);
  const DeviceInfo &info = deviceInfo(device);
  const std::string arch = archFor(info.major, info.minor);
  // Images were compiled without HELIONC_NVRTC_OPTIONS: with it set, NVRTC runs.
  if (spec.aot && environmentOptions().empty())
    if (const AotImage *image =
            findAotImage(*spec.aot, spec.nameExpression, arch, info.major, info.minor)) {
      auto kernel = moduleKernel(spec, device, image->data, image->lowered);
      kernel->fromAot = true;
      return kernel;
    }
  if (aotRequired())
    throwMissingImage(spec, arch, info);
  CompileRequest request{spec.source, spec.programName, {spec.nameExpression}, arch, spec.options};
  CompiledProgram program = compile(request);
  auto kernel =
      moduleKernel(spec, device, program.cubin.data(), program.loweredNames.at(spec.nameExpression));
  kernel->compileSeconds = program.cacheHit ? 0 : program.seconds;
  kernel->cacheHit = program.cacheHit;
  return kernel;
}

} // namespace

void Kernel::reserveDynamicShared(int bytes) const {
  if (bytes <= dynamicSharedLimit_.load(std::memory_order_relaxed))
    return;
  checkCuda(driverApi().cuFuncSetAttribute(function_,
                                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
            "raising the dynamic shared memory of kernel '" + name_ + "' to " +
                std::to_string(bytes) + " bytes");
  int seen = dynamicSharedLimit_.load(std::memory_order_relaxed);
  while (seen < bytes && !dynamicSharedLimit_.compare_exchange_weak(seen, bytes)) {
  }
}

int Kernel::numRegisters() const {
  int value = 0;
  checkCuda(driverApi().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, function_),
            "querying the registers of kernel '" + name_ + "'");
  return value;
}

int Kernel::staticSharedBytes() const {
  int value = 0;
  checkCuda(driverApi().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function_),
            "querying the shared memory of kernel '" + name_ + "'");
  return value;
}

int Kernel::residentBlocksPerSm(int threads) const {
  const std::int64_t cached = resident_.load(std::memory_order_relaxed);
  if (cached >> 32 == threads)
    return static_cast<int>(cached & 0xffffffff);
  int blocks = 0;
  // Launches of the kernels that ask use no dynamic shared memory.
  checkCuda(driverApi().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function_, threads, 0),
            "querying the occupancy of kernel '" + name_ + "'");
  blocks = std::max(blocks, 1);
  resident_.store(std::int64_t(threads) << 32 | blocks, std::memory_order_relaxed);
  return blocks;
}

const Kernel &loadKernel(const KernelSpec &spec) {
  installCudaBackend();
  requireDriver();
  const int device = spec.device >= 0 ? spec.device : currentDevice();
  const std::string key = kernelKey(spec, device);
  KernelTable &table = kernelTable();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    if (auto it = table.kernels.find(key); it != table.kernels.end()) {
      if (spec.dynamicSharedBytes > 0)
        it->second->reserveDynamicShared(spec.dynamicSharedBytes);
      return *it->second;
    }
  }
  // Compile without the lock, so that threads loading different kernels (the
  // tuner's compile pool) do not wait for each other; a racing duplicate is
  // dropped (its module stays loaded, harmlessly).
  std::unique_ptr<Kernel> kernel = buildKernel(spec, device);
  std::lock_guard<std::mutex> lock(table.mutex);
  auto [it, inserted] = table.kernels.emplace(key, std::move(kernel));
  return *it->second;
}

void launch(const Kernel &kernel, Dim3 grid, Dim3 block, unsigned sharedBytes, void **args,
            CUstream stream) {
  useDevice(kernel.device());
  if (sharedBytes > 48 * 1024)
    kernel.reserveDynamicShared(static_cast<int>(sharedBytes));
  lastKernel.store(&kernel, std::memory_order_relaxed);
  lastThreads.store(block.x * block.y * block.z, std::memory_order_relaxed);
  CUresult result =
      driverApi().cuLaunchKernel(kernel.function(), grid.x, grid.y, grid.z, block.x, block.y,
                                 block.z, sharedBytes, stream, args, nullptr);
  if (result == CUDA_SUCCESS)
    return;
  auto dims = [](Dim3 d) {
    return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
  };
  throw CudaError("helion: launching kernel '" + kernel.name() + "': " + cudaErrorText(result) +
                      " [grid " + dims(grid) + ", block " + dims(block) + ", " +
                      std::to_string(sharedBytes) + " bytes of dynamic shared memory]",
                  result);
}

unsigned lastLaunchThreads() { return lastThreads.load(std::memory_order_relaxed); }

std::string lastKernelName() {
  const Kernel *last = lastKernel.load(std::memory_order_relaxed);
  return last ? last->name() : std::string();
}

bool KernelCache::Entry::matches(const std::int64_t *k, std::size_t n) const {
  return size == n && std::equal(k, k + n, key);
}

const Kernel *KernelCache::find(const std::int64_t *key, std::size_t size) const {
  // Slots [0, used) were stored before used_ was raised past them (release),
  // and each entry is immutable once published.
  const std::size_t used = used_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < used; ++i) {
    const Entry *e = slots_[i].load(std::memory_order_relaxed);
    if (e->matches(key, size))
      return e->kernel;
  }
  if (used < kSlots)
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry *e = overflow_; e; e = e->next)
    if (e->matches(key, size))
      return e->kernel;
  return nullptr;
}

const Kernel &KernelCache::insert(const std::int64_t *key, std::size_t size, const Kernel &kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t used = used_.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < used; ++i)
    if (const Entry *e = slots_[i].load(std::memory_order_relaxed); e->matches(key, size))
      return *e->kernel; // another thread loaded the same key first
  for (const Entry *e = overflow_; e; e = e->next)
    if (e->matches(key, size))
      return *e->kernel;
  auto *stored = new std::int64_t[size]; // never freed, like the entry and the kernel
  std::copy(key, key + size, stored);
  auto *entry = new Entry{stored, size, &kernel, nullptr};
  if (used < kSlots) {
    slots_[used].store(entry, std::memory_order_relaxed);
    used_.store(used + 1, std::memory_order_release);
  } else {
    entry->next = overflow_;
    overflow_ = entry;
  }
  return kernel;
}

namespace {
std::string syncWhat() {
  std::string last = lastKernelName();
  return last.empty() ? std::string("synchronizing") : "synchronizing after kernel '" + last + "'";
}
} // namespace

void synchronize() {
  useDevice(currentDevice());
  checkCuda(driverApi().cuCtxSynchronize(), syncWhat());
}

void synchronize(CUstream stream) {
  useDevice(currentDevice());
  checkCuda(driverApi().cuStreamSynchronize(stream), syncWhat());
}

} // namespace helion::rt
