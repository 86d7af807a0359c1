// Dtypes: the DType enum, its `hl::` spellings, PyTorch type promotion, and the
// element read/write routines that ref mode uses on raw tensor memory.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <string_view>

#include "helion/hl/error.h"
#include "helion/hl/half.h"

namespace helion {

/// Element type of a tensor or a block.
/// f8e4m3 and f8e5m2 are torch.float8_e4m3fn and torch.float8_e5m2: storage only,
/// blocks of them are cast (`.to()`) before any arithmetic.
enum class DType : int8_t { f16, bf16, f32, f64, i8, i32, i64, b8, u8, f8e4m3, f8e5m2 };

namespace hl {
inline constexpr DType f16 = DType::f16;
inline constexpr DType bf16 = DType::bf16;
inline constexpr DType f32 = DType::f32;
inline constexpr DType f64 = DType::f64;
inline constexpr DType i8 = DType::i8;
inline constexpr DType i32 = DType::i32;
inline constexpr DType i64 = DType::i64;
inline constexpr DType b8 = DType::b8;
inline constexpr DType u8 = DType::u8;
inline constexpr DType f8e4m3 = DType::f8e4m3;
inline constexpr DType f8e5m2 = DType::f8e5m2;
} // namespace hl

constexpr std::string_view dtype_name(DType d) {
  switch (d) {
  case DType::f16: return "f16";
  case DType::bf16: return "bf16";
  case DType::f32: return "f32";
  case DType::f64: return "f64";
  case DType::i8: return "i8";
  case DType::i32: return "i32";
  case DType::i64: return "i64";
  case DType::b8: return "b8";
  case DType::u8: return "u8";
  case DType::f8e4m3: return "f8e4m3";
  case DType::f8e5m2: return "f8e5m2";
  }
  return "?";
}

inline std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

/// Bytes per element.
constexpr int64_t element_size(DType d) {
  switch (d) {
  case DType::f16: case DType::bf16: return 2;
  case DType::f32: case DType::i32: return 4;
  case DType::f64: case DType::i64: return 8;
  case DType::i8: case DType::b8: case DType::u8: case DType::f8e4m3: case DType::f8e5m2:
    return 1;
  }
  return 1;
}

constexpr bool is_floating(DType d) {
  return d == DType::f16 || d == DType::bf16 || d == DType::f32 || d == DType::f64 ||
         d == DType::f8e4m3 || d == DType::f8e5m2;
}

/// The 8-bit floats: storage only (no arithmetic before a `.to()`).
constexpr bool is_float8(DType d) { return d == DType::f8e4m3 || d == DType::f8e5m2; }

namespace detail {

/// The C++ type that `data_ptr<T>()` expects for each dtype.
template <class T> struct DTypeOf;
template <> struct DTypeOf<Half> { static constexpr DType value = DType::f16; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::bf16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::f32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::f64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::i8; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::i32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::i64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::b8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::u8; };

/// PyTorch's categories: bool < integer < floating.
constexpr int category(DType d) { return d == DType::b8 ? 0 : is_floating(d) ? 2 : 1; }

/// torch.promote_types for two tensors (blocks).
constexpr DType promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  if (category(a) != category(b))
    return category(a) > category(b) ? a : b;
  if (category(a) == 1) {
    // u8 with i8: torch gives i16, which helion lacks; i32 holds both ranges.
    if ((a == DType::u8 && b == DType::i8) || (a == DType::i8 && b == DType::u8))
      return DType::i32;
    return element_size(a) > element_size(b) ? a : b;
  }
  if ((a == DType::f16 && b == DType::bf16) || (a == DType::bf16 && b == DType::f16))
    return DType::f32;
  return element_size(a) > element_size(b) ? a : b;
}

/// Promotion where an operand may be a C++ scalar ("weak", like a Python number in
/// PyTorch): a scalar only matters when it is of a higher category, and then gives
/// the default dtype of that category (f32 for floating, i64 for integers).
constexpr DType resultType(DType a, bool aWeak, DType b, bool bWeak) {
  if (aWeak == bWeak)
    return promoteTypes(a, b);
  DType block = aWeak ? b : a;
  DType scalar = aWeak ? a : b;
  if (category(scalar) > category(block))
    return category(scalar) == 2 ? DType::f32 : DType::i64;
  return block;
}

/// Rounds a computed value to the precision arithmetic of dtype `d` runs at: f16 and
/// bf16 compute in f32 (their values are rounded to f16/bf16 only by `.to()` or by a
/// store), f32 in f32, f64 in f64.
inline double roundForCompute(DType d, double v) {
  return d == DType::f64 ? v : static_cast<double>(static_cast<float>(v));
}

/// Rounds a value to what dtype `d` can hold (f16/bf16 to their own precision).
inline double roundToDType(DType d, double v) {
  switch (d) {
  case DType::f16: return static_cast<double>(Half(v));
  case DType::bf16: return static_cast<double>(BFloat16(v));
  case DType::f32: return static_cast<double>(static_cast<float>(v));
  case DType::f8e4m3: return detail::f8e4m3BitsToDouble(detail::f8e4m3BitsFromDouble(v));
  case DType::f8e5m2: return detail::f8e5m2BitsToDouble(detail::f8e5m2BitsFromDouble(v));
  default: return v;
  }
}

/// Float to integer as PyTorch does (truncation), but defined for every input:
/// NaN gives 0 and out-of-range values saturate instead of being undefined behaviour.
inline int64_t floatToInt(DType d, double v) {
  if (d == DType::b8)
    return v != 0;  // NaN is true, as in PyTorch
  if (std::isnan(v))
    return 0;
  double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  if (d == DType::i8) { lo = -128; hi = 127; }
  if (d == DType::i32) { lo = -2147483648.0; hi = 2147483647.0; }
  if (d == DType::u8) { lo = 0; hi = 255; }
  if (v <= lo)
    return static_cast<int64_t>(lo);
  if (v >= hi)
    return d == DType::i64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi);
  return static_cast<int64_t>(v);
}

/// Wraps an integer into the range of dtype `d` (two's complement, as on the GPU).
inline int64_t wrapInt(DType d, int64_t v) {
  switch (d) {
  case DType::i8: return static_cast<int8_t>(v);
  case DType::i32: return static_cast<int32_t>(v);
  case DType::u8: return static_cast<uint8_t>(v);
  case DType::b8: return v != 0;
  default: return v;
  }
}

template <class T> T loadRaw(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T> void storeRaw(void* p, T v) { std::memcpy(p, &v, sizeof(T)); }

/// Reads one element of dtype `d` as a double (exact for every float dtype).
inline double loadFloat(const void* p, DType d) {
  switch (d) {
  case DType::f16: return detail::halfBitsToDouble(loadRaw<uint16_t>(p));
  case DType::bf16: return detail::bfloat16BitsToDouble(loadRaw<uint16_t>(p));
  case DType::f32: return loadRaw<float>(p);
  case DType::f64: return loadRaw<double>(p);
  case DType::i8: return loadRaw<int8_t>(p);
  case DType::i32: return loadRaw<int32_t>(p);
  case DType::i64: return static_cast<double>(loadRaw<int64_t>(p));
  case DType::b8: return loadRaw<uint8_t>(p) != 0;
  case DType::u8: return loadRaw<uint8_t>(p);
  case DType::f8e4m3: return detail::f8e4m3BitsToDouble(loadRaw<uint8_t>(p));
  case DType::f8e5m2: return detail::f8e5m2BitsToDouble(loadRaw<uint8_t>(p));
  }
  return 0;
}

/// Reads one element of an integer or bool dtype.
inline int64_t loadInt(const void* p, DType d) {
  switch (d) {
  case DType::i8: return loadRaw<int8_t>(p);
  case DType::i32: return loadRaw<int32_t>(p);
  case DType::i64: return loadRaw<int64_t>(p);
  case DType::b8: return loadRaw<uint8_t>(p) != 0;
  case DType::u8: return loadRaw<uint8_t>(p);
  default: return floatToInt(DType::i64, loadFloat(p, d));
  }
}

/// Writes `v` as dtype `d`, rounding to nearest even for the float dtypes.
inline void storeFloat(void* p, DType d, double v) {
  switch (d) {
  case DType::f16: storeRaw(p, detail::halfBitsFromDouble(v)); return;
  case DType::bf16: storeRaw(p, detail::bfloat16BitsFromDouble(v)); return;
  case DType::f32: storeRaw(p, static_cast<float>(v)); return;
  case DType::f64: storeRaw(p, v); return;
  case DType::i8: storeRaw(p, static_cast<int8_t>(floatToInt(d, v))); return;
  case DType::i32: storeRaw(p, static_cast<int32_t>(floatToInt(d, v))); return;
  case DType::i64: storeRaw(p, floatToInt(d, v)); return;
  case DType::b8: storeRaw(p, static_cast<uint8_t>(v != 0)); return;
  case DType::u8: storeRaw(p, static_cast<uint8_t>(floatToInt(d, v))); return;
  case DType::f8e4m3: storeRaw(p, detail::f8e4m3BitsFromDouble(v)); return;
  case DType::f8e5m2: storeRaw(p, detail::f8e5m2BitsFromDouble(v)); return;
  }
}

inline void storeInt(void* p, DType d, int64_t v) {
  switch (d) {
  case DType::i8: storeRaw(p, static_cast<int8_t>(v)); return;
  case DType::i32: storeRaw(p, static_cast<int32_t>(v)); return;
  case DType::i64: storeRaw(p, v); return;
  case DType::b8: storeRaw(p, static_cast<uint8_t>(v != 0)); return;
  case DType::u8: storeRaw(p, static_cast<uint8_t>(v)); return;
  default: storeFloat(p, d, static_cast<double>(v)); return;
  }
}

} // namespace detail
} // namespace helion
