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

// ---------------------------------------------------------------------------
// Compute types: f16/bf16/f32 compute in float, f64 in double, integers in
// int64 (PyTorch's accumulation types), bool stays bool.

template <class T> struct compute_type { typedef T type; };
template <> struct compute_type<f16> { typedef float type; };
template <> struct compute_type<bf16> { typedef float type; };
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
  if constexpr (is_same_v<T, f16> || is_same_v<T, bf16>)
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
  else if constexpr (is_same_v<C, f16> || is_same_v<C, bf16>)
    return static_cast<T>(to_float(v));
  else
    return static_cast<T>(v);
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
