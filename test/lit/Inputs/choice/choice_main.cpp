// Runs the launcher of add compiled with a "choose" entry (choice.json) against the
// fake driver (Inputs/aot/fake_cuda.cpp, whose clock charges 1 us per program):
// the first call for a shape times both candidates on the current stream and runs the
// winner, later calls for that shape launch the winner only, a new shape decides again.
#include <helion/hl.h>
#include <helion/runtime/Generated.h>

#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <string>

namespace gen_add {
#include "add.helion.cpp"
}

int main() {
  const auto cuda = helion::Device::cuda(0);
  helion::rt::StreamGuard on(reinterpret_cast<CUstream>(0x5eed));
  try {
    helion::Tensor x = helion::empty({4096}, helion::DType::f32, cuda);
    helion::Tensor y = helion::empty({4096}, helion::DType::f32, cuda);
    std::printf("call 1\n");
    std::fflush(stdout);
    helion::Tensor out = gen_add::add(x, y);
    std::printf("call 2\n");
    std::fflush(stdout);
    gen_add::add(x, y);
    helion::Tensor big = helion::empty({65536}, helion::DType::f32, cuda);
    std::printf("call 3\n");
    std::fflush(stdout);
    gen_add::add(big, big);
    std::printf("forced entry 0\n");
    std::fflush(stdout);
    helion::rt::forcedShapeEntry().store(0);
    gen_add::add(x, y);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
  }
  std::fflush(stdout);
  return 0;
}
