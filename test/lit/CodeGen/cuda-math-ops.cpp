// REQUIRES: frontend
// RUN: %helionc compile %examples/pointwise_math.cpp --emit cuda | FileCheck %s --check-prefix=MATH
// RUN: %helionc compile %examples/int_hash.cpp --emit ir | FileCheck %s --check-prefix=INT-IR
// RUN: %helionc compile %examples/int_hash.cpp --emit cuda | FileCheck %s --check-prefix=INT
// RUN: rm -rf %t && %helionc compile %examples/int_hash.cpp --emit cubin --dtype i32 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=DIAG
// The math functions compute in the result's compute type through hd:: (CUDA's
// accurate functions for f32); integer % and the bitwise operators are C++'s on the
// 64-bit compute type; bitwise operators on a float block are located errors.

// MATH-DAG: hd::sin(hd::compute_t<T_p_x>(
// MATH-DAG: hd::cos(hd::compute_t<T_p_x>(
// MATH-DAG: hd::erf(hd::compute_t<T_p_x>(
// MATH-DAG: hd::log1p(hd::compute_t<T_p_x>(
// MATH-DAG: hd::pow(hd::compute_t<T_p_x>(
// MATH-DAG: hd::floor(hd::compute_t<T_p_x>(
// MATH-DAG: hd::ceil(hd::compute_t<T_p_x>(
// MATH-DAG: hd::round(hd::compute_t<T_p_x>(
// MATH-DAG: hd::exp2(hd::compute_t<T_p_x>(
// MATH-DAG: hd::log2(hd::compute_t<T_p_x>(

// INT-IR:      let %h.1 = bitxor(%v.0, shr(%v.0, 7))
// INT-IR-NEXT: %h.1 = bitxor(shl(%h.1, 3), bitnot(%h.1))
// INT-IR-NEXT: %h.1 = bitand(bitor(%h.1, 1), 2147483647)
// INT-IR-NEXT: store %out[flat(%tile)] = mod(%h.1, %buckets)

// INT: >> hd::compute_t<T_p_x>(int64(7))
// INT: << hd::compute_t<T_p_x>(int64(3))
// INT-SAME: ^ hd::compute_t<T_p_x>(hd::bit_not(
// INT: | hd::compute_t<T_p_x>(int64(1))
// INT-SAME: & hd::compute_t<T_p_x>(int64(2147483647))
// INT: hd::mod(hd::compute_t<T_p_x>(v1_h[i_t0]), hd::compute_t<T_p_x>(p_buckets))
// CUBIN: int_hash.hash_bucket.i32.cubin: hash_bucket_kernel<hd::int32, hd::int32, 4, 0> (sm_80
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor bits(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty_like(x);
  for (auto tm : hl::tile(m)) {
    auto f = x[tm, hl::all].to(hl::f32);
    // DIAG: cuda-math-ops.cpp:[[@LINE+3]]:27: error: operator & needs integer or bool operands, got f32
    // DIAG: cuda-math-ops.cpp:[[@LINE+2]]:37: error: operator << needs integer or bool operands, got f32
    // DIAG: cuda-math-ops.cpp:[[@LINE+1]]:45: error: operator ~ needs integer or bool operands, got f32
    out[tm, hl::all] = (f & 1) + (f << 2) + ~f + (f % 2.0f) + hl::pow(f, 2);
  }
  return out;
}
