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
#include "runtime/device/helion/gemm_fp8.cuh" // f8x4_to_f16x2 (plain integer code)

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

TEST_CASE("hl::dot of 8-bit float blocks is exact products summed, f32 result",
          "[refmode][float8]") {
  for (DType d : {DType::f8e4m3, DType::f8e5m2}) {
    INFO(helion::dtype_name(d));
    // a [2, 3] x b [3, 2]: values that 8-bit floats hold exactly, products that f32 holds.
    const double av[6] = {1.5, -2.0, 0.375, 448.0 / 64, 0.0, -0.015625};
    const double bv[6] = {3.0, 0.5, -1.25, 2.0, 16.0, -0.0625};
    helion::hl::Block a(d, {2, 3}), b(d, {3, 2});
    for (int i = 0; i < 6; ++i) {
      a.setFloat(i, av[i]);
      b.setFloat(i, bv[i]);
    }
    helion::hl::Block c = helion::hl::dot(a, b);
    REQUIRE(c.dtype() == DType::f32);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double want = 0;
        for (int k = 0; k < 3; ++k)
          want += av[i * 3 + k] * bv[k * 2 + j];
        CHECK(c.getFloat(i * 2 + j) == want);
      }
    // with an accumulator, and the operand transposed as w[tn, tk].transpose(0, 1) reads it
    helion::hl::Block acc = helion::hl::dot(a, b.transpose(0, 1).transpose(0, 1), c);
    CHECK(acc.getFloat(0) == 2 * c.getFloat(0));
    // arithmetic on the operands is still an error
    CHECK_THROWS_WITH(a * 2.0f, Catch::Contains("hold values only"));
  }
}

TEST_CASE("the sm80 GEMM widens 8-bit floats to f16 exactly", "[refmode][float8]") {
  // f8x4_to_f16x2 on every code in every byte position: e5m2 is an f16's upper byte;
  // e4m3 lands as 2^-8 of its value (the kernel multiplies the product sums by 2^16).
  for (unsigned c = 0; c < 256; ++c) {
    INFO("code " << c);
    const uint32_t word = c | ((c ^ 0x5Au) << 8) | ((255 - c) << 16) | (((c * 7) & 0xFFu) << 24);
    const uint8_t bytes[4] = {static_cast<uint8_t>(c), static_cast<uint8_t>(c ^ 0x5A),
                              static_cast<uint8_t>(255 - c), static_cast<uint8_t>((c * 7) & 0xFF)};
    uint32_t lo, hi;
    hd::f8x4_to_f16x2<hd::f8e5m2>(word, lo, hi);
    const uint16_t halves5[4] = {static_cast<uint16_t>(lo), static_cast<uint16_t>(lo >> 16),
                                 static_cast<uint16_t>(hi), static_cast<uint16_t>(hi >> 16)};
    hd::f8x4_to_f16x2<hd::f8e4m3>(word, lo, hi);
    const uint16_t halves4[4] = {static_cast<uint16_t>(lo), static_cast<uint16_t>(lo >> 16),
                                 static_cast<uint16_t>(hi), static_cast<uint16_t>(hi >> 16)};
    for (int i = 0; i < 4; ++i) {
      INFO("byte " << i);
      CHECK(sameFloat(helion::detail::halfBitsToDouble(halves5[i]),
                      helion::detail::f8e5m2BitsToDouble(bytes[i])));
      const double e4 = helion::detail::f8e4m3BitsToDouble(bytes[i]);
      if (!std::isnan(e4)) // the e4m3 NaN is not kept (documented in gemm_fp8.cuh)
        CHECK(helion::detail::halfBitsToDouble(halves4[i]) * 256.0 == e4);
    }
  }
  CHECK(hd::f8ProductScale<hd::f8e4m3> == 65536.0f);
  CHECK(hd::f8ProductScale<hd::f8e5m2> == 1.0f);
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
