// REQUIRES: frontend
// RUN: %helionc compile %examples/layer_norm.cpp --emit ir | FileCheck %s
// The IR of examples/layer_norm.cpp straight after parsing.

// CHECK-LABEL: kernel layer_norm(%x: tensor<rank 2>, %weight: tensor, %bias: tensor, %eps: f64, %m: i64 captured, %out: tensor<rank 2> captured)
// CHECK-NEXT:   block_sizes: bs0(tm, hint %m)
// CHECK-NEXT:   for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:     let %row.0 = cast<f32>(load %x[%tm, :])
// CHECK-NEXT:     let %mean.1 = mean(%row.0, dim=1, keepdim)
// CHECK-NEXT:     let %centered.2 = sub(%row.0, %mean.1)
// CHECK-NEXT:     let %var.3 = mean(mul(%centered.2, %centered.2), dim=1, keepdim)
// CHECK-NEXT:     let %normalized.4 = mul(%centered.2, rsqrt(add(%var.3, %eps)))
// CHECK-NEXT:     store %out[%tm, :] = add(mul(%normalized.4, load %weight[:]), load %bias[:])
// CHECK-NEXT:   }
