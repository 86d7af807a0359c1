// REQUIRES: frontend
// RUN: %helionc compile %examples/quant_fp8.cpp --kernel quant_fp8 --emit cuda | FileCheck %s
// RUN: rm -rf %t && %helionc compile %examples/quant_fp8.cpp --kernel dequant_fp8 --emit cubin --dtype f8e5m2,scale=f32,out=bf16 --arch sm_80 -o %t | FileCheck %s --check-prefix=CUBIN
// RUN: not %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=DIAG
// f8e4m3 and f8e5m2 tensors (torch.float8_e4m3fn, torch.float8_e5m2) are storage: a store
// rounds to them (hd::from_compute, software rounding as torch's .to()), a load widens
// to float; arithmetic on a block of them is an error until it is cast.

// CHECK-LABEL: void quant_fp8_kernel(
// CHECK: h.v[v] = hd::from_compute<T_p_q>(

// CUBIN: quant_fp8.dequant_fp8.f8e5m2.out-bf16.scale-f32.cubin: dequant_fp8_kernel<hd::f8e5m2, float, hd::bf16, 16, 0> (sm_80
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor float8_math(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto t : hl::tile(x.size(0))) {
    auto q = x[t].to(hl::f8e4m3);
    // DIAG: cuda-float8.cpp:[[@LINE+1]]:16: error: mul of a f8e4m3 block: 8-bit floats hold values only, cast them first (.to(hl::f32))
    out[t] = q * 2.0f;
    // DIAG: cuda-float8.cpp:[[@LINE+1]]:18: error: exp of a f8e5m2 block: 8-bit floats hold values only, cast them first (.to(hl::f32))
    out[t] = hl::exp(x[t].to(hl::f8e5m2));
    out[t] = q.to(hl::f32) * 2.0f; // fine
  }
  return out;
}
