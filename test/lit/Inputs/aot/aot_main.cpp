// Runs generated launchers against the fake driver (fake_cuda.cpp): which images
// load, which name a launcher asks for, which stream each launch goes to.
//   aot_main add-f32 | add-bf16 | softmax | c-api
#include <helion/hl.h>
#include <helion/hl/dlpack.h>
#include <helion/runtime/CApi.h>
#include <helion/runtime/Generated.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

// The C entries of add only: the C API helpers live in the namespace of the first
// file that defines them.
#define HELIONC_C_API
namespace gen_add {
#include "add.helion.cpp"
}
#undef HELIONC_C_API
namespace gen_softmax {
#include "softmax.helion.cpp"
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto cuda = helion::Device::cuda(0);
  CUstream stream = reinterpret_cast<CUstream>(0x5eed);
  try {
    if (mode == "add-f32" || mode == "add-bf16") {
      const auto dtype = mode == "add-f32" ? helion::DType::f32 : helion::DType::bf16;
      helion::Tensor x = helion::empty({1000}, dtype, cuda), y = helion::empty({1000}, dtype, cuda);
      std::printf("add on the current stream\n");
      gen_add::add(x, y);
      std::printf("add on a given stream\n");
      gen_add::add(x, y, stream);
      std::printf("zeros on a current stream\n");
      helion::rt::StreamGuard on(stream);
      helion::zeros({16}, dtype, cuda);
    } else if (mode == "softmax") {
      helion::Tensor x = helion::empty({64, 4096}, helion::DType::f32, cuda);
      gen_softmax::softmax(x, stream);
    } else if (mode == "c-api") {
      helion::Tensor x = helion::empty({1000}, helion::DType::f32, cuda);
      helion::DLManagedTensor* dx = helion::to_dlpack(x);
      helion::DLManagedTensor* result = nullptr;
      int rc = gen_add::helionc_add(&dx->dl_tensor, &dx->dl_tensor, &result, stream);
      std::printf("helionc_add: %d%s%s\n", rc, rc ? ": " : "", helion_rt_last_error());
      if (result)
        result->deleter(result);
      dx->deleter(dx);
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
  }
  std::printf("images:\n%s", helion_rt_aot_images());
  std::printf("nvrtc loaded: %d\n", helion_rt_nvrtc_loaded());
  return 0;
}
