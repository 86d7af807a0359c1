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
#include <utility>

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

TEST_CASE("HELIONC_REQUIRE_AOT: set to anything but empty or 0", "[aot]") {
  ::unsetenv("HELIONC_REQUIRE_AOT");
  CHECK_FALSE(aotRequired());
  ::setenv("HELIONC_REQUIRE_AOT", "0", 1);
  CHECK_FALSE(aotRequired());
  ::setenv("HELIONC_REQUIRE_AOT", "1", 1);
  CHECK(aotRequired());
  ::unsetenv("HELIONC_REQUIRE_AOT");
}

TEST_CASE("HELIONC_NO_STREAM_K and HELIONC_NO_ROW_FITTING: set to anything but empty or 0",
          "[stream]") {
  const std::pair<const char*, bool (*)()> switches[] = {
      {"HELIONC_NO_STREAM_K", streamKEnabled}, {"HELIONC_NO_ROW_FITTING", rowFittingEnabled}};
  for (const auto& [name, enabled] : switches) {
    ::unsetenv(name);
    CHECK(enabled());
    ::setenv(name, "", 1);
    CHECK(enabled());
    ::setenv(name, "0", 1);
    CHECK(enabled());
    ::setenv(name, "1", 1);
    CHECK_FALSE(enabled());
    ::unsetenv(name);
  }
  ::setenv("HELIONC_NO_ROW_FITTING", "1", 1); // one does not switch the other off
  CHECK(streamKEnabled());
  CHECK_FALSE(rowFittingForced());
  ::unsetenv("HELIONC_NO_ROW_FITTING");
}

TEST_CASE("HELIONC_ROW_FITTING: set to anything but empty or 0", "[stream]") {
  ::unsetenv("HELIONC_ROW_FITTING");
  CHECK_FALSE(rowFittingForced());
  ::setenv("HELIONC_ROW_FITTING", "", 1);
  CHECK_FALSE(rowFittingForced());
  ::setenv("HELIONC_ROW_FITTING", "0", 1);
  CHECK_FALSE(rowFittingForced());
  ::setenv("HELIONC_ROW_FITTING", "1", 1);
  CHECK(rowFittingForced());
  CHECK(rowFittingEnabled()); // forcing it does not switch it on past HELIONC_NO_ROW_FITTING
  ::unsetenv("HELIONC_ROW_FITTING");
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
