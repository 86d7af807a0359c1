//===- Nvrtc.cpp - libnvrtc loaded at its first use -----------------------===//

#include "NvrtcApi.h"

#include "helion/runtime/Compile.h"

#include <cuda.h> // CUDA_VERSION: the NVRTC major version this runtime was built for

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace helion::rt {
namespace detail {
namespace {

std::atomic<bool> loaded{false};

/// The libraries to try, in order (NvrtcApi.h).
std::vector<std::string> candidates() {
  if (const char *only = std::getenv("HELIONC_NVRTC_LIBRARY"); only && *only)
    return {only};
  const std::string soname = "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000);
  std::vector<std::string> out = {soname};
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    out.push_back(std::string(home) + "/lib64/" + soname);
  out.push_back("/usr/local/cuda/lib64/" + soname);
  return out;
}

/// Loads once; a failure is remembered and rethrown on every later call.
struct LoadedNvrtc {
  NvrtcApi api;
  std::string failure; // empty when usable

  LoadedNvrtc() {
    void *handle = nullptr;
    std::string tried;
    for (const std::string &name : candidates()) {
      handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle)
        break;
      const char *why = dlerror();
      tried += "\n  " + name + (why ? std::string(": ") + why : std::string());
    }
    if (!handle) {
      failure = "helion: NVRTC could not be loaded; tried:" + tried +
                "\n(put CUDA " + std::to_string(CUDA_VERSION / 1000) +
                "'s lib64 on LD_LIBRARY_PATH, or embed the kernel's image with "
                "`helionc compile --aot-arch ARCH` so that no NVRTC is needed)";
      return;
    }
#define HELION_RESOLVE_NVRTC_ENTRY(name)                                                           \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));                           \
  if (!api.name) {                                                                                 \
    failure = "helion: the loaded NVRTC has no entry point " #name;                                \
    return;                                                                                        \
  }
    HELION_NVRTC_ENTRY_POINTS(HELION_RESOLVE_NVRTC_ENTRY)
#undef HELION_RESOLVE_NVRTC_ENTRY
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(api.nvrtcCompileProgram), &info) && info.dli_fname)
      api.path = info.dli_fname;
    loaded.store(true);
  }
};

LoadedNvrtc &loadedNvrtc() {
  static LoadedNvrtc nvrtc; // thread-safe initialization
  return nvrtc;
}

} // namespace

const NvrtcApi &nvrtcApi() {
  LoadedNvrtc &nvrtc = loadedNvrtc();
  if (!nvrtc.failure.empty())
    throw std::runtime_error(nvrtc.failure);
  return nvrtc.api;
}

} // namespace detail

bool nvrtcLoaded() { return detail::loaded.load(); }

std::string nvrtcVersion() {
  int major = 0, minor = 0;
  detail::nvrtcApi().nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

} // namespace helion::rt
