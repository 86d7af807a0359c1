// REQUIRES: frontend
// RUN: %helionc compile %examples/cross_entropy.cpp --emit ir | FileCheck %s
// The IR of examples/cross_entropy.cpp straight after parsing.

// CHECK-LABEL: kernel cross_entropy(%logits: tensor<rank 2>, %labels: tensor, %n: i64 captured, %losses: tensor<rank 1> captured)
// CHECK-NEXT:   block_sizes: bs0(tn, hint %n)
// CHECK-NEXT:   for %tn in tile(0, %n) block bs0 {
// CHECK-NEXT:     let %lbl.0 = load %labels[%tn]
// CHECK-NEXT:     let %row.1 = cast<f32>(load %logits[%tn, :])
// CHECK-NEXT:     let %mx.2 = amax(%row.1, dim=1)
// CHECK-NEXT:     let %lse.3 = add(%mx.2, log(sum(exp(sub(%row.1, %mx.2[:, newaxis])), dim=1)))
// CHECK-NEXT:     let %target.4 = load_gather %logits[gather(%tn.index), gather(%lbl.0)]
// CHECK-NEXT:     store %losses[%tn] = sub(%lse.3, %target.4)
// CHECK-NEXT:   }
