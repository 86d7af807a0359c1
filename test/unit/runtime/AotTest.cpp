// The runtime's side of kernels compiled ahead of time: which embedded image runs
// on which device, the registry helion_rt_aot_images() lists, the current stream,
// NVRTC opened on first use only, and the launchers' switches read from the environment.
#include "helion/runtime/Aot.h"
#include "helion/runtime/CApi.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/Stream.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

using namespace helion::rt;

TEST_CASE("an image runs on its architecture, or on a newer minor of a portable one", "[aot]") {
  CHECK(aotArchRuns("sm_90a", 9, 0));
  CHECK_FALSE(aotArchRuns("sm_90a", 9, 1));
  CHECK_FALSE(aotArchRuns("sm_90a", 10, 0));
  CHECK(aotArchRuns("sm_80", 8, 0));
  CHECK(aotArchRuns("sm_80", 8, 6));
  CHECK_FALSE(aotArchRuns("sm_86", 8, 0));
  CHECK_FALSE(aotArchRuns("sm_80", 9, 0)); // no SASS compatibility across majors
  CHECK(aotArchRuns("sm_90", 9, 0));
  CHECK(aotArchRuns("sm_100f", 10, 3));
  CHECK(aotArchRuns("sm_120", 12, 0));
  CHECK_FALSE(aotArchRuns("compute_90", 9, 0));
  CHECK_FALSE(aotArchRuns("sm_9", 9, 0));
}

namespace {
const char kA[] = "a", kB[] = "bb", kC[] = "ccc", kD[] = "dddd";
const AotImage kImages[] = {
    {"sm_80", "k<float, 4>", "_Z1kILi4EEvv", kA, 1},
    {"sm_86", "k<float, 4>", "_Z1kILi4EEvv", kB, 2},
    {"sm_90a", "k<float, 4>", "_Z1kILi4EEvv", kC, 3},
    {"sm_90a", "k<float, 2>", "_Z1kILi2EEvv", kD, 4},
};
const AotTable kTable = {"k.cpp.cu", kImages, 4};
} // namespace

TEST_CASE("findAotImage: the exact name, the exact arch first, else the newest that runs",
          "[aot]") {
  CHECK(findAotImage(kTable, "k<float, 4>", "sm_90a", 9, 0) == &kImages[2]);
  CHECK(findAotImage(kTable, "k<float, 2>", "sm_90a", 9, 0) == &kImages[3]);
  CHECK(findAotImage(kTable, "k<float, 4>", "sm_89", 8, 9) == &kImages[1]);
  CHECK(findAotImage(kTable, "k<float, 4>", "sm_80", 8, 0) == &kImages[0]);
  CHECK(findAotImage(kTable, "k<float, 2>", "sm_80", 8, 0) == nullptr);
  CHECK(findAotImage(kTable, "k<float, 4>", "sm_100a", 10, 0) == nullptr);
  CHECK(findAotImage(kTable, "k<float,4>", "sm_90a", 9, 0) == nullptr); // names match exactly
}

TEST_CASE("registered tables are listed, one line per image", "[aot]") {
  static const AotRegistration registered(kTable);
  const std::string listing = helion_rt_aot_images();
  CHECK(listing.find("k.cpp.cu sm_80 1 k<float, 4>\n") != std::string::npos);
  CHECK(listing.find("k.cpp.cu sm_90a 4 k<float, 2>\n") != std::string::npos);
}

TEST_CASE("the launchers' switches: set to anything but empty or 0, each on its own",
          "[aot][stream]") {
  struct Switch {
    const char* name;
    bool (*read)();
    bool whileSet; ///< what read() gives while the variable is set
  };
  const Switch switches[] = {{"HELIONC_REQUIRE_AOT", aotRequired, true},
                             {"HELIONC_NO_STREAM_K", streamKEnabled, false},
                             {"HELIONC_NO_ROW_FITTING", rowFittingEnabled, false},
                             {"HELIONC_ROW_FITTING", rowFittingForced, true}};
  for (const Switch& o : switches)
    ::unsetenv(o.name);
  for (const Switch& sw : switches) {
    INFO(sw.name);
    CHECK(sw.read() == !sw.whileSet);
    for (const char* off : {"", "0"}) {
      ::setenv(sw.name, off, 1);
      CHECK(sw.read() == !sw.whileSet);
    }
    ::setenv(sw.name, "1", 1);
    CHECK(sw.read() == sw.whileSet);
    for (const Switch& o : switches) // no switch moves another
      if (&o != &sw)
        CHECK(o.read() == !o.whileSet);
    ::unsetenv(sw.name);
  }
}

TEST_CASE("the current stream is per thread and restored by StreamGuard", "[stream]") {
  CHECK(currentStream() == nullptr);
  CUstream a = reinterpret_cast<CUstream>(0x10), b = reinterpret_cast<CUstream>(0x20);
  {
    StreamGuard outer(a);
    CHECK(currentStream() == a);
    CHECK(helion_rt_current_stream() == static_cast<void *>(a));
    {
      StreamGuard inner(b);
      CHECK(currentStream() == b);
    }
    CHECK(currentStream() == a);
  }
  CHECK(currentStream() == nullptr);
  helion_rt_set_current_stream(b);
  CHECK(currentStream() == b);
  setCurrentStream(nullptr);
}
