// helion/math.cuh: elementwise math in the compute types.
//
// f32 versions use the fast hardware approximations (ex2.approx, lg2.approx,
// rsqrt.approx, tanh.approx: a few ulp, what Triton and torch.compile emit);
// f64 versions use the accurate libdevice functions.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/// Two floats as one register of T x 2 (T bf16 or f16; lo in the low half, at the
/// lower address), rounded to nearest even.
template <class T> __device__ __forceinline__ uint32 pack2_rn(float lo, float hi) {
  uint32 r;
  if constexpr (is_same_v<T, bf16>)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// 2^x, approximate (ex2.approx.ftz): the softmax exponentials of flash attention.
__device__ __forceinline__ float ex2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
#endif

/// e^x as 2^(x log2 e) on the MUFU. ftz: a result below 2^-126 is 0 (what
/// __expf spends three extra instructions per element to keep).
__device__ __forceinline__ float exp(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}
__device__ __forceinline__ double exp(double x) { return ::exp(x); }

__device__ __forceinline__ float log(float x) { return __logf(x); }
__device__ __forceinline__ double log(double x) { return ::log(x); }

__device__ __forceinline__ float sqrt(float x) { return __fsqrt_rn(x); }
__device__ __forceinline__ double sqrt(double x) { return ::sqrt(x); }

__device__ __forceinline__ float rsqrt(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ double rsqrt(double x) { return ::rsqrt(x); }

__device__ __forceinline__ float tanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ double tanh(double x) { return ::tanh(x); }

/// 1 / (1 + e^-x); saturates to 0 and 1 without NaN for large |x|.
__device__ __forceinline__ float sigmoid(float x) { return __frcp_rn(1.0f + __expf(-x)); }
__device__ __forceinline__ double sigmoid(double x) { return 1.0 / (1.0 + ::exp(-x)); }

__device__ __forceinline__ float abs(float x) { return fabsf(x); }
__device__ __forceinline__ double abs(double x) { return ::fabs(x); }
__device__ __forceinline__ int64 abs(int64 x) { return x < 0 ? -x : x; }

// erf, floor, ceil, round (half to even, as torch.round), sin, cos, log1p, exp2,
// log2 and pow use CUDA's accurate functions (a few ulp at most); f16/bf16 compute
// in f32. floor, ceil and round of an integer are the integer itself.
__device__ __forceinline__ float erf(float x) { return ::erff(x); }
__device__ __forceinline__ double erf(double x) { return ::erf(x); }
__device__ __forceinline__ float floor(float x) { return ::floorf(x); }
__device__ __forceinline__ double floor(double x) { return ::floor(x); }
__device__ __forceinline__ int64 floor(int64 x) { return x; }
__device__ __forceinline__ float ceil(float x) { return ::ceilf(x); }
__device__ __forceinline__ double ceil(double x) { return ::ceil(x); }
__device__ __forceinline__ int64 ceil(int64 x) { return x; }
__device__ __forceinline__ float round(float x) { return ::rintf(x); }
__device__ __forceinline__ double round(double x) { return ::rint(x); }
__device__ __forceinline__ int64 round(int64 x) { return x; }
__device__ __forceinline__ float sin(float x) { return ::sinf(x); }
__device__ __forceinline__ double sin(double x) { return ::sin(x); }
__device__ __forceinline__ float cos(float x) { return ::cosf(x); }
__device__ __forceinline__ double cos(double x) { return ::cos(x); }
__device__ __forceinline__ float log1p(float x) { return ::log1pf(x); }
__device__ __forceinline__ double log1p(double x) { return ::log1p(x); }
__device__ __forceinline__ float exp2(float x) { return ::exp2f(x); }
__device__ __forceinline__ double exp2(double x) { return ::exp2(x); }
__device__ __forceinline__ float log2(float x) { return ::log2f(x); }
__device__ __forceinline__ double log2(double x) { return ::log2(x); }
__device__ __forceinline__ float pow(float a, float b) { return ::powf(a, b); }
__device__ __forceinline__ double pow(double a, double b) { return ::pow(a, b); }

/// `%`: the remainder with the sign of the dividend (C++ and std::fmod). An integer
/// remainder by zero is not trapped (the result is unspecified); ref mode rejects it.
__device__ __forceinline__ float mod(float a, float b) { return ::fmodf(a, b); }
__device__ __forceinline__ double mod(double a, double b) { return ::fmod(a, b); }
__device__ __forceinline__ int64 mod(int64 a, int64 b) { return b == -1 ? 0 : a % b; }

/// `~`: bitwise not of an integer, logical not of a bool (as torch.bitwise_not).
__device__ __forceinline__ int64 bit_not(int64 x) { return ~x; }
__device__ __forceinline__ bool bit_not(bool x) { return !x; }

/// torch.maximum: NaN if either operand is NaN (fmaxf would drop it).
template <class T> __device__ __forceinline__ T maximum(T a, T b) {
  return (a > b || a != a) ? a : b;
}
/// One FMNMX.NAN instead of compares and selects (sm_80+).
template <> __device__ __forceinline__ float maximum(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

/// torch.minimum: NaN if either operand is NaN.
template <class T> __device__ __forceinline__ T minimum(T a, T b) {
  return (a < b || a != a) ? a : b;
}
template <> __device__ __forceinline__ float minimum(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

/// argmax/argmin: the starting best value (no element seen yet: index -1), and
/// whether v at a later index replaces the best b (NaN is the extreme, as in
/// torch.argmax; equal values keep the earlier index).
template <bool MAX, class C> __device__ __forceinline__ C arg_init() {
  return MAX ? C(-__int_as_float(0x7f800000)) : C(__int_as_float(0x7f800000));
}
template <> __device__ __forceinline__ int64 arg_init<true, int64>() { return -0x7fffffffffffffffLL - 1; }
template <> __device__ __forceinline__ int64 arg_init<false, int64>() { return 0x7fffffffffffffffLL; }
template <> __device__ __forceinline__ bool arg_init<true, bool>() { return false; }
template <> __device__ __forceinline__ bool arg_init<false, bool>() { return true; }
template <bool MAX, class C> __device__ __forceinline__ bool arg_better(C v, C b, int64 bi) {
  if (bi < 0) return true;
  if (b != b) return false;
  if (v != v) return true;
  return MAX ? v > b : v < b;
}

/// Ceiling division for sizes and grid math: cdiv(10, 4) == 3.
template <class T> __device__ __forceinline__ T cdiv(T a, T b) { return (a + b - 1) / b; }

/// a / b where b is the same for many a (a broadcast divisor: a row's sum under a
/// softmax, attention's li): one correctly rounded reciprocal, then products
/// (within 1.5 ulp of the quotient; the compiler shares the reciprocal).
template <class C> __device__ __forceinline__ C div_bcast(C a, C b) { return a / b; }
__device__ __forceinline__ float div_bcast(float a, float b) { return a * __frcp_rn(b); }

}  // namespace helion::dev
