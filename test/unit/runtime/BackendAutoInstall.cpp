// Linking helion_runtime must install the CUDA backend of helion::Tensor before
// main, even in a program that calls nothing of the runtime (the static
// initializer lives in an archive member the link would otherwise drop).
#include "helion/hl.h"

#include <cstdio>

int main() {
  if (helion::device_backend(helion::DeviceType::CUDA))
    return 0;
  std::fprintf(stderr, "error: no CUDA backend installed at startup: the runtime's static "
                       "initializer was not linked in\n");
  return 1;
}
