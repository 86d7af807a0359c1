// REQUIRES: frontend
// RUN: %helionc compile %examples/sum.cpp --emit ir | FileCheck %s
// The IR of examples/sum.cpp straight after parsing.

// CHECK-LABEL: kernel sum_rows(%x: tensor<rank 2>, %m: i64 captured, %out: tensor<rank 1> captured)
// CHECK-NEXT:   block_sizes: bs0(tm, hint %m)
// CHECK-NEXT:   for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:     store %out[%tm] = sum(load %x[%tm, :], dim=1)
// CHECK-NEXT:   }
