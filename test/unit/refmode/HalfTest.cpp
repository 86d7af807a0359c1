// f16 and bf16: round to nearest even straight from double, NaN/inf preserved, and
// the "compute in f32, round on .to()/store" semantics of f16 blocks.
#include "RefTestUtil.h"

using helion::BFloat16;
using helion::DType;
using helion::Half;

TEST_CASE("f16 rounds to nearest, ties to even", "[refmode][half]") {
  CHECK(Half(1.0).bits == 0x3C00);
  CHECK(Half(1.0 + std::ldexp(1, -11)).bits == 0x3C00);      // tie, down to even
  CHECK(Half(1.0 + 3 * std::ldexp(1, -11)).bits == 0x3C02);  // tie, up to even
  CHECK(Half(1.0 + std::ldexp(1, -11) + std::ldexp(1, -30)).bits == 0x3C01);  // above the tie
  CHECK(Half(65504.0).bits == 0x7BFF);
  CHECK(Half(65519.99).bits == 0x7BFF);
  CHECK(Half(65520.0).bits == 0x7C00);  // rounds past the largest finite value
  CHECK(Half(-65520.0).bits == 0xFC00);
  CHECK(Half(std::ldexp(1, -14)).bits == 0x0400);  // smallest normal
  CHECK(Half(std::ldexp(1, -24)).bits == 0x0001);  // smallest subnormal
  CHECK(Half(std::ldexp(1, -25)).bits == 0x0000);  // tie between 0 and 2^-24: even
  CHECK(Half(3 * std::ldexp(1, -25)).bits == 0x0002);
  CHECK(Half(-0.0).bits == 0x8000);
  CHECK(Half(INFINITY).bits == 0x7C00);
  CHECK(Half(-INFINITY).bits == 0xFC00);
  CHECK(std::isnan(static_cast<double>(Half(NAN))));
  CHECK((Half(NAN).bits & 0x7C00) == 0x7C00);
  CHECK(static_cast<double>(Half::fromBits(0x3555)) == 0.333251953125);
}

TEST_CASE("bf16 rounds to nearest, ties to even", "[refmode][half]") {
  CHECK(BFloat16(1.0).bits == 0x3F80);
  CHECK(BFloat16(1.0 + std::ldexp(1, -8)).bits == 0x3F80);
  CHECK(BFloat16(1.0 + 3 * std::ldexp(1, -8)).bits == 0x3F82);
  // Rounding through f32 first would lose the 2^-40 and round this tie down.
  CHECK(BFloat16(1.0 + std::ldexp(1, -8) + std::ldexp(1, -40)).bits == 0x3F81);
  CHECK(BFloat16(3.3895313892515355e38).bits == 0x7F7F);
  CHECK(BFloat16(3.4e38).bits == 0x7F80);
  CHECK(BFloat16(-INFINITY).bits == 0xFF80);
  CHECK(std::isnan(static_cast<double>(BFloat16(NAN))));
  CHECK(BFloat16(std::ldexp(1, -133)).bits == 0x0001);  // smallest subnormal
}

TEST_CASE("every f16 and bf16 value survives a round trip", "[refmode][half]") {
  int nanCount = 0;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    double h = Half::fromBits(static_cast<uint16_t>(bits));
    double b = BFloat16::fromBits(static_cast<uint16_t>(bits));
    if (std::isnan(h)) {
      ++nanCount;
      REQUIRE(std::isnan(static_cast<double>(Half(h))));
    } else {
      REQUIRE(Half(h).bits == bits);
    }
    if (std::isnan(b))
      REQUIRE(std::isnan(static_cast<double>(BFloat16(b))));
    else
      REQUIRE(BFloat16(b).bits == bits);
  }
  CHECK(nanCount == 2 * 1023);
}

TEST_CASE("f16 blocks compute in f32 and round on .to() and on store", "[refmode][half]") {
  helion::Tensor x = helion::empty({1}, DType::f16);
  x.data_ptr<Half>()[0] = Half(2048.0);
  auto v = x[hl::all] + 1;  // 2049 is not an f16 value; it stays exact in f32
  CHECK(v.dtype() == DType::f16);
  CHECK(v.item() == 2049.0);
  CHECK(v.to(DType::f16).item() == 2048.0);  // tie, rounds to even
  CHECK((v + 2).to(DType::f16).item() == 2052.0);

  helion::Tensor out16 = helion::empty({1}, DType::f16);
  helion::Tensor out32 = helion::empty({1}, DType::f32);
  out16[hl::all] = v;
  out32[hl::all] = v;
  CHECK(static_cast<double>(out16.data_ptr<Half>()[0]) == 2048.0);
  CHECK(out32.data_ptr<float>()[0] == 2049.0f);
}

TEST_CASE("f32 arithmetic rounds to f32 and f64 keeps double", "[refmode][half]") {
  auto a = hl::full({1}, 1.0, DType::f32);
  CHECK((a + 1e-9).item() == 1.0);
  auto b = hl::full({1}, 1.0, DType::f64);
  CHECK((b + 1e-9).item() == 1.0 + 1e-9);
  CHECK(hl::full({1}, 0.1, DType::f32).item() == static_cast<double>(0.1f));
  CHECK(hl::full({1}, 0.1, DType::bf16).item() == static_cast<double>(BFloat16(0.1)));
}
