// REQUIRES: frontend
// RUN: %helionc compile %examples/softmax.cpp --emit ir | FileCheck %s
// The IR of examples/softmax.cpp straight after parsing.

// CHECK-LABEL: kernel softmax(%x: tensor<rank 2>, %m: i64 captured, %out: tensor<rank 2> captured)
// CHECK-NEXT:   block_sizes: bs0(tm, hint %m)
// CHECK-NEXT:   for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:     let %values.0 = load %x[%tm, :]
// CHECK-NEXT:     let %amax.1 = amax(%values.0, dim=1, keepdim)
// CHECK-NEXT:     let %e.2 = exp(sub(%values.0, %amax.1))
// CHECK-NEXT:     store %out[%tm, :] = div(%e.2, sum(%e.2, dim=1, keepdim))
// CHECK-NEXT:   }
// CHECK-LABEL: kernel softmax_two_pass(%x: tensor<rank 2>, %m: i64 captured, %n: i64 captured, %out: tensor<rank 2> captured)
// CHECK-NEXT:   block_sizes: bs0(block_m, hint %m) bs1(block_n, hint %n)
// CHECK-NEXT:   for %tm in tile(0, %m) block bs0 {
// CHECK-NEXT:     let %mi.0 = full([tm], -inf, f32)
// CHECK-NEXT:     let %di.1 = full([tm], 0.0, f32)
// CHECK-NEXT:     for %tn in tile(0, %n) block bs1 {
// CHECK-NEXT:       let %values.2 = load %x[%tm, %tn]
// CHECK-NEXT:       let %mi_next.3 = maximum(%mi.0, amax(%values.2, dim=1))
// CHECK-NEXT:       %di.1 = add(mul(%di.1, exp(sub(%mi.0, %mi_next.3))), sum(exp(sub(%values.2, %mi_next.3[:, newaxis])), dim=1))
// CHECK-NEXT:       %mi.0 = %mi_next.3
// CHECK-NEXT:     }
// CHECK-NEXT:     for %tn in tile(0, %n) block bs1 {
// CHECK-NEXT:       let %values.4 = load %x[%tm, %tn]
// CHECK-NEXT:       store %out[%tm, %tn] = div(exp(sub(%values.4, %mi.0[:, newaxis])), %di.1[:, newaxis])
// CHECK-NEXT:     }
// CHECK-NEXT:   }
