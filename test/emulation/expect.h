// The emulation tests' check: EXPECT(condition, printf-style context) counts a failure
// in `bad` and prints the first 20; main returns bad == 0 ? 0 : 1.
#pragma once
#include <cstdio>

static int bad = 0;
#define EXPECT(c, ...)                                                                         \
  do {                                                                                         \
    if (!(c) && bad++ < 20) {                                                                  \
      std::printf("FAIL %s:", #c);                                                             \
      std::printf(__VA_ARGS__);                                                                \
      std::printf("\n");                                                                       \
    }                                                                                          \
  } while (0)
