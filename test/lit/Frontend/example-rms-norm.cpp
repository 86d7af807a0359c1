// REQUIRES: frontend
// RUN: %helionc compile %examples/rms_norm.cpp --emit ir | FileCheck %s
// The IR of examples/rms_norm.cpp straight after parsing.

// CHECK-LABEL: kernel rms_norm(%x: tensor<rank 2>, %weight: tensor, %eps: f64, %m: i64 captured, %out: tensor<rank 2> captured)
// CHECK-NEXT:   block_sizes: bs0(tm, hint %m)
// CHECK-NEXT:   for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:     let %row.0 = cast<f32>(load %x[%tm, :])
// CHECK-NEXT:     let %inv_rms.1 = rsqrt(add(mean(mul(%row.0, %row.0), dim=1, keepdim), %eps))
// CHECK-NEXT:     store %out[%tm, :] = mul(mul(%row.0, %inv_rms.1), load %weight[:])
// CHECK-NEXT:   }
