// REQUIRES: frontend
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %examples/sum.cpp --stop-after infer-types -o %t | FileCheck %s
// RUN: ls -A %t | FileCheck %s --check-prefix=EMPTY --allow-empty
// RUN: %helionc compile %examples/sum.cpp --stop-after frontend --print-after all | FileCheck %s --check-prefix=FE
// RUN: env HELIONC_VERIFY_EACH=0 %helionc compile %examples/sum.cpp --verify-each --stop-after hoist-blocks | FileCheck %s --check-prefix=HB
// --stop-after PASS prints the IR after PASS (once, even when --print-after names it
// too), runs nothing after it and writes no file.

// EMPTY-NOT: {{.}}

// CHECK:     // -----// IR after infer-types //----- //
// CHECK-NEXT: kernel sum_rows(
// CHECK:     store %out[%tm] = sum(load %x[%tm, :], dim=1)
// CHECK-NOT: // -----// IR after

// FE:     // -----// IR after frontend //----- //
// FE-NEXT: kernel sum_rows(
// FE-NOT: // -----// IR after

// HB:     // -----// IR after hoist-blocks //----- //
// HB-NOT: // -----// IR after
