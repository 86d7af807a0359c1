// REQUIRES: frontend
// RUN: %helionc compile %s --kernel mm_cast --emit cuda | FileCheck %s --check-prefix=MM
// RUN: %helionc compile %s --kernel mm_cast --emit ptx --dtype bf16 | FileCheck %s --check-prefix=PTX
// RUN: %helionc compile %s --kernel rows_cast --emit cuda | FileCheck %s --check-prefix=ROWS
// One rule for a cast in every emitter (CudaLiteral.h, cudaCast): to f32, f64, i64 or
// bool a conversion; to any other type a round trip through it (hd::round_to), what
// storing and reloading the value gives, as in ref mode. Before, a matmul or attention
// epilogue's cast to an 8-bit float or an integer type of 8 or 32 bits converted only
// to the compute type, and the fp8 rounding was lost.
#include <helion/hl.h>

using helion::Tensor;

// MM: struct mm_cast_epilogue {
// MM: hd::round_to<hd::f8e4m3>(float(
// MM: hd::round_to<hd::int8>(float(
// MM: float(hd::round_to<hd::f8e4m3>
// It compiles (NVRTC), the sm90 kernel and the sm80 one:
// PTX: // mm_cast_kernel<hd::bf16, hd::bf16, hd::bf16, 1> (sm_90a)
// PTX: .entry
HELION_KERNEL Tensor mm_cast(const Tensor& x, const Tensor& y) {
  auto [m, k] = x.shape<2>();
  auto n = y.size(1);
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tm, tk], y[tk, tn], acc);
    auto q = acc.to(hl::f8e4m3).to(hl::f32);
    auto c = (acc * 0.01f).to(hl::i8).to(hl::f32);
    out[tm, tn] = q + c;
  }
  return out;
}

// The elementwise emitter, as before.
// ROWS: hd::round_to<hd::f8e4m3>(
HELION_KERNEL Tensor rows_cast(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto t : hl::tile(x.sizes()))
    out[t] = x[t].to(hl::f8e4m3).to(hl::f32).to(x.dtype());
  return out;
}
