// REQUIRES: frontend
// RUN: %helionc compile %examples/add.cpp --emit ir | FileCheck %s
// The IR of examples/add.cpp straight after parsing.

// CHECK-LABEL: kernel add(%x: tensor, %y: tensor, %out: tensor captured)
// CHECK-NEXT:   block_sizes: bs0(tile, hint %out.size(-1))
// CHECK-NEXT:   for %tile in tile(0, %out.size(-1)) flat(%out) block bs0 {
// CHECK-NEXT:     store %out[flat(%tile)] = add(load %x[flat(%tile)], load %y[flat(%tile)])
// CHECK-NEXT:   }
