// The 8-bit floats: ref mode's conversions (helion/hl/half.h) at known encodings of
// torch.float8_e4m3fn and torch.float8_e5m2, and the device library's software
// conversions (runtime/device/helion/types.cuh, compiled here for the host) against
// ref mode on every 8-bit code and on a sweep of floats.
#include "RefTestUtil.h"

#include <bit>
#include <cstring>

// types.cuh for the host: its few CUDA spellings, as plain functions.
#define __device__
#define __forceinline__ inline
static inline unsigned __float_as_uint(float f) { return std::bit_cast<unsigned>(f); }
static inline float __uint_as_float(unsigned u) { return std::bit_cast<float>(u); }
#include "runtime/device/helion/types.cuh"

using helion::DType;
namespace hd = helion::dev;

namespace {
uint8_t e4m3(double v) { return helion::detail::f8e4m3BitsFromDouble(v); }
uint8_t e5m2(double v) { return helion::detail::f8e5m2BitsFromDouble(v); }
bool sameFloat(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
} // namespace

TEST_CASE("f8e4m3 encodes as torch.float8_e4m3fn", "[refmode][float8]") {
  CHECK(e4m3(1.0) == 0x38);
  CHECK(e4m3(-2.0) == 0xC0);
  CHECK(e4m3(448.0) == 0x7E);                 // largest finite
  CHECK(e4m3(464.0) == 0x7E);                 // tie between 448 and 480: even
  CHECK(e4m3(470.0) == 0x7F);                 // rounds past 448: NaN (no infinity)
  CHECK(e4m3(1e6) == 0x7F);
  CHECK(e4m3(-INFINITY) == 0xFF);
  CHECK(e4m3(std::ldexp(1, -6)) == 0x08);     // smallest normal
  CHECK(e4m3(std::ldexp(1, -9)) == 0x01);     // smallest subnormal
  CHECK(e4m3(std::ldexp(1, -10)) == 0x00);    // tie between 0 and 2^-9: even
  CHECK(e4m3(3 * std::ldexp(1, -10)) == 0x02);
  CHECK(e4m3(1.0625) == 0x38);                // tie between 1 and 1.125: even
  CHECK(e4m3(1.1875) == 0x3A);                // tie between 1.125 and 1.25: even
  CHECK(helion::detail::f8e4m3BitsToDouble(0x7E) == 448.0);
  CHECK(std::isnan(helion::detail::f8e4m3BitsToDouble(0x7F)));
  CHECK(helion::detail::f8e4m3BitsToDouble(0x78) == 256.0); // top exponent is normal
}

TEST_CASE("f8e5m2 encodes as torch.float8_e5m2", "[refmode][float8]") {
  CHECK(e5m2(1.0) == 0x3C);
  CHECK(e5m2(57344.0) == 0x7B);               // largest finite
  CHECK(e5m2(61440.0) == 0x7C);               // tie rounds to even: past it, infinity
  CHECK(e5m2(-1e9) == 0xFC);
  CHECK((e5m2(NAN) & 0x7F) == 0x7F);
  CHECK(e5m2(std::ldexp(1, -16)) == 0x01);    // smallest subnormal
  CHECK(helion::detail::f8e5m2BitsToDouble(0x7C) == INFINITY);
  CHECK(std::isnan(helion::detail::f8e5m2BitsToDouble(0x7D)));
}

TEST_CASE("8-bit float blocks hold values only", "[refmode][float8]") {
  helion::hl::Block b(DType::f8e4m3, {2});
  CHECK_THROWS_WITH(helion::hl::exp(b), Catch::Contains(
                                            "8-bit floats hold values only, cast them first"));
  CHECK_THROWS_WITH(b + 1.0f, Catch::Contains("of a f8e4m3 block"));
  CHECK_THROWS_WITH(helion::hl::sum(b, 0), Catch::Contains("hold values only"));
  CHECK(b.to(DType::f32).dtype() == DType::f32);
}

TEST_CASE("the device library's 8-bit float conversions match ref mode", "[refmode][float8]") {
  for (unsigned c = 0; c < 256; ++c) {
    auto u = static_cast<uint8_t>(c);
    INFO("code " << c);
    CHECK(sameFloat(hd::to_float(hd::f8e4m3{u}), helion::detail::f8e4m3BitsToDouble(u)));
    CHECK(sameFloat(hd::to_float(hd::f8e5m2{u}), helion::detail::f8e5m2BitsToDouble(u)));
  }
  // Every 2^11-th float bit pattern of both signs (2^21 values across all exponents),
  // plus the neighbourhood of every fp8 value and midpoint.
  auto check = [](float f) {
    INFO("float " << f << " bits " << std::bit_cast<uint32_t>(f));
    const uint8_t want4 = e4m3(f), want5 = e5m2(f);
    const uint8_t got4 = hd::to_f8e4m3(f).bits, got5 = hd::to_f8e5m2(f).bits;
    // Any NaN encoding is a NaN; the sign of a NaN does not matter.
    if ((want4 & 0x7F) == 0x7F)
      CHECK((got4 & 0x7F) == 0x7F);
    else
      CHECK(got4 == want4);
    if ((want5 & 0x7F) > 0x7C)
      CHECK((got5 & 0x7F) > 0x7C);
    else
      CHECK(got5 == want5);
  };
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 1u << 11)
    check(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  for (unsigned c = 0; c < 256; ++c)
    for (double v : {helion::detail::f8e4m3BitsToDouble(static_cast<uint8_t>(c)),
                     helion::detail::f8e5m2BitsToDouble(static_cast<uint8_t>(c))}) {
      if (!std::isfinite(v))
        continue;
      const float f = static_cast<float>(v);
      for (int d = -2; d <= 2; ++d)
        check(std::bit_cast<float>(std::bit_cast<uint32_t>(f) + d));
      // midpoints to the next code of each format
      check(static_cast<float>((v + helion::detail::f8e4m3BitsToDouble(static_cast<uint8_t>(c + 1))) / 2));
    }
}
