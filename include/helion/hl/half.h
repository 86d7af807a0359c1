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

// The 8-bit floats of torch.float8_e4m3fn (4 exponent bits, bias 7, 3 mantissa bits,
// no infinities, S.1111.111 the only NaN, largest 448) and torch.float8_e5m2 (IEEE-like:
// 5 exponent bits, bias 15, 2 mantissa bits, largest 57344). Rounding is to nearest
// even, as PyTorch's `.to()`; a value that rounds past the largest finite one becomes
// NaN in e4m3 (it has no infinity) and an infinity in e5m2, as in PyTorch.
inline constexpr double kF8E4M3Max = 448.0;
inline constexpr double kF8E5M2Max = 57344.0;

/// Encodes an already rounded, finite, nonzero magnitude `r` with `mantissaBits` and
/// exponent bias `bias` (subnormals below 2^(1 - bias)).
inline uint8_t encodeMinifloat(double r, int mantissaBits, int bias) {
  int exponent = 0;
  double fraction = std::frexp(r, &exponent); // r = fraction * 2^exponent, [0.5, 1)
  if (exponent - 1 < 1 - bias) // subnormal: a multiple of 2^(1 - bias - mantissaBits)
    return static_cast<uint8_t>(std::ldexp(r, bias - 1 + mantissaBits));
  auto mantissa = static_cast<unsigned>((fraction * 2 - 1) * (1 << mantissaBits));
  return static_cast<uint8_t>(((exponent - 1 + bias) << mantissaBits) | mantissa);
}

inline uint8_t f8e4m3BitsFromDouble(double x) {
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (!std::isfinite(x))
    return sign | 0x7F; // NaN, and infinities too: e4m3fn has none
  const double r = std::fabs(roundToFormat(x, 3, -6, kF8E4M3Max));
  if (std::isinf(r))
    return sign | 0x7F;
  return r == 0 ? sign : sign | encodeMinifloat(r, 3, 7);
}

inline double f8e4m3BitsToDouble(uint8_t bits) {
  const double sign = (bits & 0x80) ? -1.0 : 1.0;
  const int exponent = (bits >> 3) & 0xF, mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7)
    return std::copysign(NAN, sign);
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -9);
  return sign * std::ldexp(8 + mantissa, exponent - 10);
}

inline uint8_t f8e5m2BitsFromDouble(double x) {
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x))
    return sign | 0x7F;
  const double r = std::fabs(roundToFormat(x, 2, -14, kF8E5M2Max));
  if (std::isinf(r))
    return sign | 0x7C;
  return r == 0 ? sign : sign | encodeMinifloat(r, 2, 15);
}

inline double f8e5m2BitsToDouble(uint8_t bits) {
  const double sign = (bits & 0x80) ? -1.0 : 1.0;
  const int exponent = (bits >> 2) & 0x1F, mantissa = bits & 0x3;
  if (exponent == 0x1F)
    return mantissa ? std::copysign(NAN, sign) : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -16);
  return sign * std::ldexp(4 + mantissa, exponent - 17);
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
