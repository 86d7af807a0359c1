// Software f16 and bf16 scalars for ref mode and host code.
//
// Conversions round to nearest, ties to even, directly from double (so a double is
// never rounded twice on its way to half precision); NaN stays NaN and infinities
// stay infinite. Values are decoded to double, which holds every f16/bf16 exactly.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace helion {
namespace detail {

/// Rounds `x` to a binary format with `mantissaBits` stored mantissa bits, smallest
/// normal exponent `minExponent` and largest finite value `maxFinite`; overflow gives
/// an infinity. Worked example for f16 (10 bits, -14): 1 + 2^-11 lies halfway between
/// 1 and 1 + 2^-10, so x / 2^-10 = 1024.5 and nearbyint picks the even 1024.
inline double roundToFormat(double x, int mantissaBits, int minExponent, double maxFinite) {
  if (x == 0 || !std::isfinite(x))
    return x;
  double magnitude = std::fabs(x);
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
  int leading = exponent - 1 < minExponent ? minExponent : exponent - 1;
  double quantum = std::ldexp(1.0, leading - mantissaBits);
  // Scaling by a power of two is exact, and nearbyint rounds ties to even in the
  // default rounding mode.
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded > maxFinite)
    rounded = INFINITY;
  return std::copysign(rounded, x);
}

inline constexpr double kHalfMax = 65504.0;
inline constexpr double kBFloat16Max = 3.3895313892515355e38;  // (2 - 2^-7) * 2^127

inline uint16_t halfBitsFromDouble(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return sign | 0x7E00;  // a quiet NaN
  double r = std::fabs(roundToFormat(x, 10, -14, kHalfMax));
  if (std::isinf(r))
    return sign | 0x7C00;
  if (r == 0)
    return sign;
  int exponent = 0;
  double fraction = std::frexp(r, &exponent);
  if (exponent - 1 < -14)  // subnormal: a multiple of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(r, 24));
  auto mantissa = static_cast<uint16_t>((fraction * 2 - 1) * 1024);
  return sign | static_cast<uint16_t>((exponent - 1 + 15) << 10) | mantissa;
}

inline double halfBitsToDouble(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1F;
  int mantissa = bits & 0x3FF;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa ? std::copysign(NAN, sign) : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

inline uint16_t bfloat16BitsFromDouble(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return sign | 0x7FC0;
  // The rounded value is exact in f32 (bf16 is f32 with a shorter mantissa), so its
  // top 16 bits are the bf16 encoding.
  auto f = static_cast<float>(roundToFormat(x, 7, -126, kBFloat16Max));
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16);
}

inline double bfloat16BitsToDouble(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

} // namespace detail

/// IEEE binary16 stored as its bits (dtype hl::f16).
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(double value) : bits(detail::halfBitsFromDouble(value)) {}
  static Half fromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  operator double() const { return detail::halfBitsToDouble(bits); }
};

/// bfloat16 stored as its bits (dtype hl::bf16).
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(double value) : bits(detail::bfloat16BitsFromDouble(value)) {}
  static BFloat16 fromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  operator double() const { return detail::bfloat16BitsToDouble(bits); }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

} // namespace helion
