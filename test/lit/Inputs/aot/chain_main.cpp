// Runs the launcher of two chained dots (examples/dot_generic.cpp, mlp_relu) against
// the fake driver (fake_cuda.cpp): which kernel, grid and block it launches for which
// tensors. The chain template's kernel where the device is 9.x and the tensors fit
// it, else the generic kernel.
#include <helion/hl.h>
#include <helion/runtime/CApi.h>
#include <helion/runtime/Generated.h>

#include <cstdio>
#include <exception>

#include "dot_generic.helion.cpp"

int main() {
  const auto cuda = helion::Device::cuda(0);
  auto run = [&](const char* what, int64_t m, int64_t k, int64_t h, int64_t n,
                 helion::DType dtype) {
    std::printf("%s\n", what);
    try {
      helion::Tensor x = helion::empty({m, k}, dtype, cuda);
      helion::Tensor w1 = helion::empty({k, h}, dtype, cuda);
      helion::Tensor w2 = helion::empty({h, n}, dtype, cuda);
      mlp_relu(x, w1, w2);
    } catch (const std::exception& e) {
      std::printf("error: %s\n", e.what());
    }
  };
  run("bf16 8192x256x256x256", 8192, 256, 256, 256, helion::DType::bf16);
  run("bf16 1000x128x200x96", 1000, 128, 200, 96, helion::DType::bf16);
  run("bf16 k 72", 1000, 72, 40, 24, helion::DType::bf16);
  run("bf16 n 100", 1000, 128, 200, 100, helion::DType::bf16);
  std::printf("images:\n%s", helion_rt_aot_images());
  std::printf("nvrtc loaded: %d\n", helion_rt_nvrtc_loaded());
  return 0;
}
