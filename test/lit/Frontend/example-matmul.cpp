// REQUIRES: frontend
// RUN: %helionc compile %examples/matmul.cpp --emit ir | FileCheck %s
// The IR of examples/matmul.cpp straight after parsing.

// CHECK-LABEL: kernel matmul(%x: tensor<rank 2>, %y: tensor<rank 2>, %m: i64 captured, %n: i64 captured, %k: i64 captured, %out: tensor<rank 2> captured)
// CHECK-NEXT:   block_sizes: bs0(tm, hint %m) bs1(tn, hint %n) bs2(tk, hint %k)
// CHECK-NEXT:   for %tm in tile(0, %m) block bs0, %tn in tile(0, %n) block bs1 {
// CHECK-NEXT:     let %acc.0 = full([tm, tn], 0.0, f32)
// CHECK-NEXT:     for %tk in tile(0, %k) block bs2 {
// CHECK-NEXT:       %acc.0 = dot(load %x[%tm, %tk], load %y[%tk, %tn], %acc.0)
// CHECK-NEXT:     }
// CHECK-NEXT:     store %out[%tm, %tn] = %acc.0
// CHECK-NEXT:   }
