// REQUIRES: frontend
// RUN: %helionc compile %s --emit cuda | FileCheck %s
// RUN: rm -rf %t && env HELIONC_NO_CACHE=1 %helionc compile %s --emit cubin -o %t | FileCheck %s --check-prefix=CUBIN
// A kernel's tensors and scalars are p_<name> in generated CUDA (lib/CodeGen/CudaNames.h),
// so they never meet the emitter's own locals: `pid` (the grid loop), `v` (the vector
// lane loop), `acc` (a reduction's accumulator), `h`, `NT`, `smem_raw`, `total_0`, ...,
// its template parameters (`VEC`) and the device helpers (`coord`). Before, a scalar
// named `pid`, `v` or `acc` was shadowed: the kernel silently multiplied by the grid
// loop's program id, the lane index or the partial sum (ref mode was right).
#include <helion/hl.h>

using helion::Tensor;

// CHECK-LABEL: scale_v_kernel(
// CHECK: float p_v,
// CHECK: * hd::compute_t<T_p_x>(p_v)
// CHECK-LABEL: scale_pid_kernel(
// CHECK: float p_pid,
// CHECK: * hd::compute_t<T_p_x>(p_pid)
// CHECK-LABEL: rowsum_acc_kernel(
// CHECK: float p_acc,
// CHECK: * hd::compute_t<T_p_x>(p_acc)
// CHECK-LABEL: many_kernel(
// CHECK: * hd::compute_t<T_p_x>(p_pid))) * hd::compute_t<T_p_x>(p_v)
// CHECK-SAME: (float(p_acc) * float(p_h))
// CHECK-SAME: (float(p_NT) * float(p_smem_raw))
// CHECK-SAME: (float(p_red_phase) * float(p_total_0))
// CHECK-SAME: (float(p_coord) * float(p_VEC))
// CHECK-SAME: (float(p_T_t0) * float(p_i_t0))
// CHECK-SAME: (p_c0_t0)
// CUBIN: scale_v_kernel<float, float, {{[0-9]+}}, 0> (sm_90a
// CUBIN: scale_pid_kernel<float, float, {{[0-9]+}}, 0> (sm_90a
// CUBIN: rowsum_acc_kernel<
// CUBIN: many_kernel<float, float, {{[0-9]+}}, 0> (sm_90a
HELION_KERNEL Tensor scale_v(const Tensor& x, float v) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = x[tile] * v;
  return out;
}

HELION_KERNEL Tensor scale_pid(const Tensor& x, float pid) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = x[tile] * pid;
  return out;
}

HELION_KERNEL Tensor rowsum_acc(const Tensor& x, float acc) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m}, x.dtype(), x.device());
  for (auto tm : hl::tile(m))
    out[tm] = hl::sum(x[tm, hl::all] * acc, 1);
  return out;
}

// Every scalar is named after a local, a template parameter or a helper of the
// generated kernel.
HELION_KERNEL Tensor many(const Tensor& x, float pid, float v, float acc, float h, float NT,
                          float smem_raw, float red_phase, float total_0, float coord,
                          float VEC, float T_t0, float i_t0, float c0_t0) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = x[tile] * pid * v + acc * h + NT * smem_raw + red_phase * total_0 +
                coord * VEC + T_t0 * i_t0 + c0_t0;
  return out;
}
