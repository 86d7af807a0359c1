// REQUIRES: frontend
// RUN: echo '{"num_warps": 8}' > %t.default.json
// RUN: %helionc compile %examples/cross_entropy.cpp --config %t.default.json --emit host | FileCheck %s
// RUN: echo '{"block_sizes": [4], "reduction_loops": [null], "num_warps": 8}' > %t.rows4.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.rows4.json --emit host | FileCheck %s --check-prefix=ROWS4
// RUN: echo '{"block_sizes": [1], "reduction_loops": [4096], "num_warps": 8}' > %t.looped.json
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --config %t.looped.json --emit host | FileCheck %s --check-prefix=LOOPED
// A kernel with a persistent reduction (the row in registers) comes with a looped
// twin (reduction_loops 32 x threads) in its own NVRTC program, and its launcher
// runs the twin when a thread would hold more than 64 row elements: a config made
// for 4096-wide rows stays usable on 131072-wide ones.

// The twin's launcher comes first, with its own kernel and KernelCache.
// CHECK-LABEL: static void helionc_launch_cross_entropy_long_rows(
// CHECK:       (reduction_loops 8192 for rows over 64 elements per thread)
// CHECK:       __global__ __launch_bounds__(256) void cross_entropy_long_rows_kernel(
// CHECK-NOT:   RDIM0
// CHECK:       static helion::rt::KernelCache kernelCache;
// CHECK:       std::string name = "cross_entropy_long_rows_kernel<";
// The persistent kernel's launcher switches on the row it would hold.
// CHECK-LABEL: static void helionc_launch_cross_entropy(
// CHECK-NEXT:  // Rows too long to hold in registers: the looped kernel.
// CHECK-NEXT:  if ((helion::rt::reductionExtent(p_logits.size(1), 256)) * 1 > int64_t(64) * 256) {
// CHECK-NEXT:    helionc_launch_cross_entropy_long_rows(p_logits, p_labels, p_n, p_losses);
// CHECK-NEXT:    return;
// CHECK-NEXT:  }
// CHECK:       std::string name = "cross_entropy_kernel<";

// Rows per program count: 4 rows of 4096 on 256 threads is 64 per thread.
// ROWS4-LABEL: static void helionc_launch_softmax(
// ROWS4-NEXT:  // Rows too long to hold in registers: the looped kernel.
// ROWS4-NEXT:  if ((helion::rt::reductionExtent(p_x.size(1), 256)) * 4 > int64_t(64) * 256) {

// An already looped reduction has no twin.
// LOOPED-NOT: long_rows
