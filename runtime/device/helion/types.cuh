// helion/types.cuh: scalar types of the device library.
//
// NVRTC spends most of its time parsing headers, so this library includes no
// host or toolkit header (no <cstdint>, no cuda_fp16.h): f16 and bf16 are
// 2-byte storage types converted to and from float by inline PTX, and every
// arithmetic on them happens in their compute type (float).
#pragma once

namespace helion::dev {

typedef signed char int8;
typedef short int16;
typedef int int32;
typedef long long int64;
typedef unsigned char uint8;
typedef unsigned short uint16;
typedef unsigned int uint32;
typedef unsigned long long uint64;

/// IEEE binary16, storage only.
struct alignas(2) f16 {
  uint16 bits;
};

/// bfloat16 (the high half of a binary32), storage only.
struct alignas(2) bf16 {
  uint16 bits;
};

__device__ __forceinline__ float to_float(f16 x) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
  return f;
}

__device__ __forceinline__ float to_float(bf16 x) {
  // bf16 is the high half of a float: widening is exact, a shift.
  return __uint_as_float(static_cast<uint32>(x.bits) << 16);
}

/// Round to nearest even, as torch's `.to(torch.float16)`.
__device__ __forceinline__ f16 to_f16(float f) {
  f16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}

/// Round to nearest even (cvt.rn.bf16.f32 needs sm_80, our oldest target).
__device__ __forceinline__ bf16 to_bf16(float f) {
  bf16 h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}

/// torch.float8_e4m3fn (bias 7, 3 mantissa bits, no infinity, S.1111.111 is NaN,
/// largest 448) and torch.float8_e5m2 (bias 15, 2 mantissa bits, IEEE-like), storage
/// only. Converted in software, to match PyTorch's `.to()` on every target: round to
/// nearest even; past the largest finite value, NaN for e4m3 and infinity for e5m2
/// (the hardware cvt.rn.satfinite saturates instead, and needs sm_89).
struct alignas(1) f8e4m3 {
  uint8 bits;
};
struct alignas(1) f8e5m2 {
  uint8 bits;
};

/// Float to an 8-bit float with M mantissa bits and exponent bias B; `nanAbove` (the
/// bits of the first float that rounds past the largest finite value) and `overflow`
/// (its encoding then) set the format's top end.
template <int M, int B>
__device__ __forceinline__ uint8 to_minifloat(float f, uint32 nanAbove, uint8 overflow) {
  uint32 x = __float_as_uint(f);
  const uint32 sign = (x >> 24) & 0x80u;
  x &= 0x7fffffffu;
  uint32 r;
  if (x > 0x7f800000u) {
    r = 0x7fu; // NaN
  } else if (x >= nanAbove) {
    r = overflow;
  } else if (x < static_cast<uint32>(127 + 1 - B) << 23) {
    // Subnormal (or zero): adding 2^(23 - (B - 1 + M)) puts the format's smallest
    // step at the float's last mantissa bit, so the float add rounds to nearest even.
    const uint32 magic = static_cast<uint32>(127 + 23 - (B - 1 + M)) << 23;
    r = __float_as_uint(__uint_as_float(x) + __uint_as_float(magic)) - magic;
  } else {
    const uint32 odd = (x >> (23 - M)) & 1u; // ties to even
    x += (static_cast<uint32>(B - 127) << 23) + ((1u << (22 - M)) - 1u) + odd;
    r = x >> (23 - M);
  }
  return static_cast<uint8>(r | sign);
}

/// An 8-bit float with M mantissa bits and bias B to float (exact); `e4m3`: the top
/// exponent holds normal values and only its all-ones mantissa is NaN.
template <int M, int B, bool E4M3>
__device__ __forceinline__ float from_minifloat(uint8 v) {
  const uint32 sign = static_cast<uint32>(v & 0x80u) << 24;
  const uint32 e = (v & 0x7fu) >> M, m = v & ((1u << M) - 1u);
  constexpr uint32 kTop = (1u << (7 - M)) - 1u;
  uint32 bits;
  if (e == kTop && (!E4M3 || m == (1u << M) - 1u))
    bits = (E4M3 || m) ? 0x7fc00000u : 0x7f800000u;
  else if (e == 0) // subnormal: m * 2^(1 - B - M), exact in float
    return __uint_as_float(sign | __float_as_uint(static_cast<float>(m) *
                                                  __uint_as_float(static_cast<uint32>(127 + 1 - B - M) << 23)));
  else
    bits = ((e + 127 - B) << 23) | (m << (23 - M));
  return __uint_as_float(sign | bits);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
/// sm_89 and later convert 8-bit floats in hardware: to f16 (which holds every e4m3 and
/// e5m2 value exactly), then to float; a NaN stays a NaN (its payload may differ from
/// from_minifloat's).
__device__ __forceinline__ float f16_bits_to_float(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ float to_float(f8e4m3 x) {
  uint32 h2;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(static_cast<unsigned short>(x.bits)));
  return f16_bits_to_float(static_cast<unsigned short>(h2 & 0xffffu));
}
__device__ __forceinline__ float to_float(f8e5m2 x) {
  uint32 h2;
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h2) : "h"(static_cast<unsigned short>(x.bits)));
  return f16_bits_to_float(static_cast<unsigned short>(h2 & 0xffffu));
}
#else
__device__ __forceinline__ float to_float(f8e4m3 x) { return from_minifloat<3, 7, true>(x.bits); }
__device__ __forceinline__ float to_float(f8e5m2 x) { return from_minifloat<2, 15, false>(x.bits); }
#endif
/// 480 = 0x43f00000 rounds past 448; 61440 = 0x47700000 past 57344.
__device__ __forceinline__ f8e4m3 to_f8e4m3(float f) { return {to_minifloat<3, 7>(f, 0x43f00000u, 0x7fu)}; }
__device__ __forceinline__ f8e5m2 to_f8e5m2(float f) { return {to_minifloat<2, 15>(f, 0x47700000u, 0x7cu)}; }

// ---------------------------------------------------------------------------
// Compute types: f16/bf16/f32 compute in float, f64 in double, integers in
// int64 (PyTorch's accumulation types), bool stays bool.

template <class T> struct compute_type { typedef T type; };
template <> struct compute_type<f16> { typedef float type; };
template <> struct compute_type<bf16> { typedef float type; };
template <> struct compute_type<f8e4m3> { typedef float type; };
template <> struct compute_type<f8e5m2> { typedef float type; };
template <> struct compute_type<float> { typedef float type; };
template <> struct compute_type<double> { typedef double type; };
template <> struct compute_type<int8> { typedef int64 type; };
template <> struct compute_type<int16> { typedef int64 type; };
template <> struct compute_type<int32> { typedef int64 type; };
template <> struct compute_type<int64> { typedef int64 type; };
template <> struct compute_type<uint8> { typedef int64 type; };
template <> struct compute_type<uint16> { typedef int64 type; };
template <> struct compute_type<uint32> { typedef int64 type; };
template <> struct compute_type<bool> { typedef bool type; };

template <class T> using compute_t = typename compute_type<T>::type;

template <class A, class B> inline constexpr bool is_same_v = false;
template <class A> inline constexpr bool is_same_v<A, A> = true;

/// Widens a stored value to its compute type: `to_compute(h)` is a float for an f16 h.
template <class T> __device__ __forceinline__ compute_t<T> to_compute(T x) {
  if constexpr (is_same_v<T, f16> || is_same_v<T, bf16> || is_same_v<T, f8e4m3> ||
                is_same_v<T, f8e5m2>)
    return to_float(x);
  else
    return static_cast<compute_t<T>>(x);
}

/// Converts a compute (or any arithmetic) value to storage type T, rounding to
/// nearest even for f16/bf16 and truncating toward zero for integers, as a C cast.
template <class T, class C> __device__ __forceinline__ T from_compute(C v) {
  if constexpr (is_same_v<T, f16>)
    return to_f16(static_cast<float>(v));
  else if constexpr (is_same_v<T, bf16>)
    return to_bf16(static_cast<float>(v));
  else if constexpr (is_same_v<T, f8e4m3>)
    return to_f8e4m3(static_cast<float>(v));
  else if constexpr (is_same_v<T, f8e5m2>)
    return to_f8e5m2(static_cast<float>(v));
  else if constexpr (is_same_v<C, f16> || is_same_v<C, bf16> || is_same_v<C, f8e4m3> ||
                     is_same_v<C, f8e5m2>)
    return static_cast<T>(to_float(v));
  else
    return static_cast<T>(v);
}

/// `v` as storing it as a T and loading it back gives: the value of a cast to T in
/// every emitted kernel (to f16 rounding to nearest even, to an integer truncating).
template <class T, class C> __device__ __forceinline__ C round_to(C v) {
  return to_compute(from_compute<T>(v));
}

/// N elements of T, aligned to their total size (N * sizeof(T) is 4, 8 or 16
/// bytes for vector accesses).
template <class T, int N> struct alignas(sizeof(T) * N) vec {
  T v[N];
  __device__ __forceinline__ T& operator[](int i) { return v[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return v[i]; }
};

/// Elements of T in one 16-byte access (4 floats, 8 halves, 2 doubles).
template <class T> inline constexpr int vec16_width = 16 / sizeof(T);

}  // namespace helion::dev
