// REQUIRES: frontend
// RUN: %helionc compile %examples/gelu_helper.cpp --emit ir | FileCheck %s
// RUN: %helionc compile %examples/gelu_helper.cpp --emit cuda | FileCheck %s --check-prefix=CUDA
// RUN: rm -rf %t && %helionc compile %examples/gelu_helper.cpp --emit cubin --dtype bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// A user helper called twice: each call is inlined, its argument evaluated once into a
// device variable named after the parameter; the template helper inside it too.

// CHECK-LABEL: kernel gelu_mul(%x: tensor, %y: tensor, %out: tensor captured)
// CHECK:      let %x.0 = load %x[flat(%tile)]
// CHECK-NEXT: let %v.1 = cast<f32>(%x.0)
// CHECK-NEXT: let %v.2 = %v.1
// CHECK-NEXT: let %x.3 = load %y[flat(%tile)]
// CHECK-NEXT: let %v.4 = cast<f32>(%x.3)
// CHECK-NEXT: let %v.5 = %v.4
// CHECK-NEXT: store %out[flat(%tile)] = mul(mul(mul(%v.2, 0.5), add(1.0, erf(mul(%v.1, 0.70710676908493042)))), mul(mul(%v.5, 0.5), add(1.0, erf(mul(%v.4, 0.70710676908493042)))))

// CUDA: hd::erf(float(
// CUDA: hd::erf(float(
// CUBIN: gelu_helper.gelu_mul.bf16.cubin: gelu_mul_kernel<hd::bf16, hd::bf16, hd::bf16, 8, 0> (sm_80
