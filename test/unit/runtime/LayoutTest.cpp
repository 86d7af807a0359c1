// helion::rt::reductionExtent: the RDIM a launcher compiles a persistent row
// reduction for (and that `helionc compile --emit cubin --size-hint` names).
#include "helion/runtime/Layout.h"

#include <catch2/catch.hpp>

using helion::rt::reductionExtent;

TEST_CASE("an extent of whole 4-vectors per thread is compiled exactly", "[layout]") {
  CHECK(reductionExtent(4096, 256) == 4096);
  CHECK(reductionExtent(10240, 256) == 10240);
  CHECK(reductionExtent(10240, 512) == 10240); // was 12288 (8-wide, a sixth masked)
  CHECK(reductionExtent(3072, 256) == 3072);   // was 4096
  CHECK(reductionExtent(1024, 256) == 1024);
}

TEST_CASE("other extents pad to a power of two or to 8 per thread", "[layout]") {
  CHECK(reductionExtent(1000, 256) == 1024);
  CHECK(reductionExtent(1, 256) == 1);
  CHECK(reductionExtent(5, 256) == 8);
  CHECK(reductionExtent(2048, 1024) == 2048); // 2 per thread: the power of two
  CHECK(reductionExtent(10000, 256) == 10240);
  CHECK(reductionExtent(131073, 256) == 133120);
}
