// The chain template's rules (ChainRules.h): the tiles the config's map to, the output-tile cap
// for the consumers' registers, and the ring depth per (K, DV) that shared memory
// leaves, against the same formula ChainSm90::kSmemBytes uses.
#include "helion/Config/ChainRules.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>

using namespace helion;
using namespace helion::config;

TEST_CASE("chain rules: the config's tiles map to 64 or 128", "[rules][chain]") {
  CHECK(chainParams(32, 64, 3).bm == 64);
  CHECK(chainParams(16, 8, 3).bn == 64);
  CHECK(chainParams(256, 64, 3).bm == 128);
  CHECK(chainParams(256, 64, 3).consumers == 2);
  CHECK(chainParams(64, 256, 3).bn == 128);
  CHECK(chainParams(96, 96, 3).bm == 64);
  CHECK(chainParams(128, 128, 3).bn == 128);
}

TEST_CASE("chain rules: consumers, the DV cap and the ring depths", "[rules][chain]") {
  std::optional<ir::ChainParams> p = chainParams(64, 64, 3);
  CHECK(p->consumers == 1);
  CHECK(p->dvMax == 256); // 128 + 32 + 16 floats
  for (const auto& row : p->stages)
    for (int s : row)
      CHECK(s == 3);
  // BN 128: 256 output columns would need 128 + 64 + 32 registers; 128 is the cap.
  p = chainParams(128, 128, 4);
  CHECK(p->consumers == 2);
  CHECK(p->dvMax == 128);
  for (int i = 0; i < 3; ++i)
    CHECK(p->stages[i][2] == 0);
  CHECK(p->stages[0][0] == 4);
  CHECK(p->stages[1][1] == 3); // 4 stages of K 128, DV 128 do not fit in 227 KB
  CHECK(p->stages[2][1] == 0); // K 256 with BN 128 and 2 consumers fits no ring
  CHECK(p->stages[2][0] == 2);
  // num_stages outside 2..4 is clamped; 1 still runs a ring of 2.
  p = chainParams(64, 64, 1);
  CHECK(p->stages[2][2] == 2);
}

TEST_CASE("chain rules: every depth chosen fits, one more would not", "[rules][chain]") {
  constexpr int64_t kMax = 227 * 1024;
  for (int bm : {64, 128})
    for (int bn : {64, 128})
      for (int stages = 1; stages <= 5; ++stages) {
        std::optional<ir::ChainParams> p = chainParams(bm, bn, stages);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            const int s = p->stages[i][j], dk = 64 << i, dv = 64 << j;
            if (s == 0)
              continue;
            CHECK(chainSm90SmemBytes(dk, dv, bn, bm / 64, s) <= kMax);
            if (s < std::clamp(stages, 2, 4))
              CHECK(chainSm90SmemBytes(dk, dv, bn, bm / 64, s + 1) > kMax);
          }
      }
}
