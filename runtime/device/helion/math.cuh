// helion/math.cuh: elementwise math in the compute types.
//
// f32 versions use the fast hardware approximations (ex2.approx, lg2.approx,
// rsqrt.approx, tanh.approx: a few ulp, what Triton and torch.compile emit);
// f64 versions use the accurate libdevice functions.
#pragma once
#include "helion/types.cuh"

namespace helion::dev {

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

/// Ceiling division for sizes and grid math: cdiv(10, 4) == 3.
template <class T> __device__ __forceinline__ T cdiv(T a, T b) { return (a + b - 1) / b; }

}  // namespace helion::dev
