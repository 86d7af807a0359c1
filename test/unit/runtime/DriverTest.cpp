// Without libcuda.so.1 (CI machines), the runtime loads, does CPU work, and
// the first CUDA use throws a CudaError that says why.
#include "helion/runtime/Driver.h"
#include "helion/runtime/CApi.h"
#include "helion/runtime/CudaBackend.h"
#include "helion/runtime/Kernel.h"
#include "helion/runtime/TensorMap.h"

#include "helion/hl.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

using namespace helion::rt;

namespace {
bool machineHasDriver() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}
} // namespace

TEST_CASE("archFor picks the a-variants for 9.0 and 10.0", "[driver]") {
  CHECK(archFor(9, 0) == "sm_90a");
  CHECK(archFor(10, 0) == "sm_100a");
  CHECK(archFor(8, 0) == "sm_80");
  CHECK(archFor(8, 6) == "sm_86");
  CHECK(archFor(8, 9) == "sm_89");
  CHECK(archFor(12, 0) == "sm_120");
}

TEST_CASE("without libcuda.so.1 the first CUDA use throws a clear CudaError", "[driver]") {
  if (machineHasDriver()) {
    WARN("this machine has libcuda.so.1: the no-driver path is not exercised");
    CHECK(driverAvailable());
    return;
  }
  CHECK_FALSE(driverAvailable());
  const std::string expected = "helion: loading the CUDA driver: libcuda.so.1 could not be loaded";
  auto checkThrows = [&](auto &&use) {
    try {
      use();
      FAIL("expected a CudaError");
    } catch (const CudaError &e) {
      CHECK_THAT(e.what(), Catch::StartsWith(expected));
      CHECK(e.code() == -1);
    }
  };
  checkThrows([] { deviceCount(); });
  checkThrows([] { requireDriver(); });
  checkThrows([] { deviceInfo(0); });
  checkThrows([] { archFor(0); });
  checkThrows([] { cudaAllocate(1024, 0); });
  checkThrows([] { synchronize(); });
  checkThrows([] { loadKernel({"k.cu", "__global__ void k() {}", "k", {}}); });
  // Twice: the failure is remembered, not retried into a crash.
  checkThrows([] { deviceCount(); });
  CHECK(helion_rt_synchronize() == -1);
  CHECK_THAT(helion_rt_last_error(), Catch::StartsWith(expected));
}

// BackendAutoInstall.cpp checks the install before main, in a binary that
// references nothing of the runtime.
TEST_CASE("CUDA tensors go through the runtime's backend", "[driver]") {
  const helion::DeviceBackend *backend = helion::device_backend(helion::DeviceType::CUDA);
  REQUIRE(backend != nullptr);
  CHECK(backend->allocate == &cudaAllocate);
  CHECK(backend->deallocate == &cudaFree);
  if (machineHasDriver())
    return;
  // A CUDA tensor reaches the driver, which is missing here.
  CHECK_THROWS_WITH(helion::empty({4, 4}, helion::hl::f32, helion::Device::cuda()),
                    Catch::StartsWith("helion: loading the CUDA driver: libcuda.so.1"));
  // CPU tensors still work.
  helion::Tensor t = helion::empty({4, 4}, helion::hl::f32, helion::Device::cpu());
  CHECK(t.numel() == 16);
}

TEST_CASE("installing the CUDA backend needs no driver", "[driver]") {
  CHECK_NOTHROW(installCudaBackend());
  CHECK_NOTHROW(installCudaBackend());
  CHECK_NOTHROW(helion_rt_install_cuda_backend());
}

TEST_CASE("TMA descriptors are validated before the driver is asked", "[driver]") {
  alignas(16) static float data[64 * 64];
  TensorMapDesc desc{data, 4, {64, 64}, {64, 1}, {32, 32}};
  auto rejects = [](TensorMapDesc d, const std::string &why) {
    INFO(why);
    CHECK_THROWS_WITH(makeTensorMap(d), Catch::Contains(why));
  };
  TensorMapDesc d = desc;
  d.strides = {64, 2};
  rejects(d, "innermost dimension must be contiguous");
  d = desc;
  d.strides = {3, 1};
  rejects(d, "multiple of 16 bytes");
  d = desc;
  d.box = {32, 512};
  rejects(d, "out of range [1, 256]");
  d = desc;
  d.base = reinterpret_cast<char *>(data) + 4;
  rejects(d, "16-byte aligned");
  d = desc;
  d.swizzle = Swizzle::b64;
  rejects(d, "64-byte swizzle");
  d = desc;
  d.box = {32, 2};
  rejects(d, "innermost box extent (8 bytes)");
  d = desc;
  d.sizes = {};
  d.strides = {};
  d.box = {};
  rejects(d, "expected rank 1 to 5");
}
