// REQUIRES: frontend
// RUN: %helionc compile %examples/add.cpp --emit ptx --dtype bf16 | FileCheck %s
// RUN: echo '{"vector_bytes": 4}' > %t.v4.json
// RUN: %helionc compile %examples/add.cpp --config %t.v4.json --emit ptx --dtype f32 | FileCheck %s --check-prefix=SCALAR
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --emit ptx --dtype f16 --arch sm_80 | FileCheck %s --check-prefix=SM80
// RUN: rm -rf %t.dir && %helionc compile %examples/add.cpp --emit ptx --dtype bf16 -o %t.dir | FileCheck %s --check-prefix=FILE
// RUN: FileCheck %s < %t.dir/add.add.bf16.ptx
// --emit ptx prints NVRTC's PTX of the --emit cubin instantiation: add in bf16 reads
// and writes 16 bytes (8 elements) per access through the read-only path.

// CHECK: // add_kernel<hd::bf16, hd::bf16, hd::bf16, 8, 0> (sm_90a)
// CHECK-NEXT: // mangled: _Z10add_kernel{{[A-Za-z0-9_]+}}
// CHECK: .target sm_90a
// CHECK: .entry _Z10add_kernel
// CHECK: ld.global.nc.v4.u32
// CHECK: st.global.v4.u32

// vector_bytes 4 in f32: one element per access.
// SCALAR: // add_kernel<float, float, float, 1, 0> (sm_90a)
// SCALAR: .entry _Z10add_kernel
// SCALAR-NOT: .v4.
// SCALAR-NOT: .v2.
// SCALAR: ld.global.nc.f32
// SCALAR-NOT: .v4.
// SCALAR-NOT: .v2.

// SM80: // softmax_kernel<4096, hd::f16, hd::f16, 8, 0> (sm_80)
// SM80: .target sm_80
// SM80: .entry _Z14softmax_kernel
// SM80: ld.global.nc.v4.u32

// With -o the PTX goes to DIR/FILE.KERNEL.DTYPES.ptx (the same text), and stdout names it.
// FILE: {{.*}}add.add.bf16.ptx: add_kernel<hd::bf16, hd::bf16, hd::bf16, 8, 0> (sm_90a, {{[0-9]+}} bytes of PTX, NVRTC {{[0-9]+}} ms)
// FILE-NOT: .entry
