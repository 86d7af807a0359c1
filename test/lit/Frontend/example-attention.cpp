// REQUIRES: frontend
// RUN: %helionc compile %examples/attention.cpp --emit ir | FileCheck %s
// The IR of examples/attention.cpp straight after parsing.

// CHECK-LABEL: kernel attention(%q: tensor<rank 3>, %k: tensor, %v: tensor, %bh: i64 captured, %m: i64 captured, %d: i64 captured specialized, %n: i64 captured, %scale: f64 captured, %out: tensor<rank 3> captured)
// CHECK-NEXT:   block_sizes: bs0(tb, fixed 1, hint %bh) bs1(tm, hint %m) bs2(tn, hint %n)
// CHECK-NEXT:   for %tb in tile(0, %bh) block bs0, %tm in tile(0, %m) block bs1 {
// CHECK-NEXT:     let %mi.0 = full([tb, tm], -inf, f32)
// CHECK-NEXT:     let %li.1 = full([tb, tm], 0.0, f32)
// CHECK-NEXT:     let %acc.2 = full([tb, tm, %d], 0.0, f32)
// CHECK-NEXT:     let %qt.3 = load %q[%tb, %tm, :]
// CHECK-NEXT:     for %tn in tile(0, %n) block bs2 {
// CHECK-NEXT:       let %s.4 = mul(dot(%qt.3, load %k[%tb, %tn, :].transpose(1, 2)), %scale)
// CHECK-NEXT:       let %mi_next.5 = maximum(%mi.0, amax(%s.4, dim=2))
// CHECK-NEXT:       let %p.6 = exp(sub(%s.4, %mi_next.5[:, :, newaxis]))
// CHECK-NEXT:       let %alpha.7 = exp(sub(%mi.0, %mi_next.5))
// CHECK-NEXT:       %li.1 = add(mul(%li.1, %alpha.7), sum(%p.6, dim=2))
// CHECK-NEXT:       %acc.2 = mul(%acc.2, %alpha.7[:, :, newaxis])
// CHECK-NEXT:       %acc.2 = dot(cast<dtype(%v)>(%p.6), load %v[%tb, %tn, :], %acc.2)
// CHECK-NEXT:       %mi.0 = %mi_next.5
// CHECK-NEXT:     }
// CHECK-NEXT:     store %out[%tb, %tm, :] = div(%acc.2, %li.1[:, :, newaxis])
// CHECK-NEXT:   }
