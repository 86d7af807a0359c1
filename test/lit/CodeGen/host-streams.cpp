// REQUIRES: frontend
// RUN: %helionc compile %s --emit host | FileCheck %s
// RUN: %if host-cxx %{ rm -rf %t && mkdir -p %t && %helionc compile %s -o %t %}
// RUN: %if host-cxx %{ %host_cxx -DHELIONC_C_API %t/host-streams.helion.cpp %}
// Every kernel function gets an overload with a trailing CUstream (cudaStream_t is the
// same type) that runs it with that stream current: the declaration is copied, its
// default arguments dropped (the overload takes every parameter), and it forwards to
// the original. Launches go to helion::rt::currentStream(). The C entry takes the
// stream last and borrows each tensor into a named local, so that an output passed as
// `Tensor&` binds.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL void scale_into(const Tensor& x, Tensor& out, double alpha = 2.0) {
  for (auto tile : hl::tile(x.sizes())) {
    out[tile] = x[tile] * alpha;
  }
}

namespace ops {
HELION_KERNEL Tensor twice(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes())) {
    out[tile] = x[tile] + x[tile];
  }
  return out;
}
} // namespace ops

// CHECK:      helion::rt::launch(kernel, grid, helion::rt::Dim3({{[0-9]+}}), 0, args, helion::rt::currentStream());
// CHECK:      HELION_KERNEL void scale_into(const Tensor& x, Tensor& out, double alpha = 2.0) {
// The entries call the kernel through a forwarder (a parameter may have its name).
// CHECK:      // helionc: 'scale_into' for its entries below, where a parameter may have its name (generated, do not edit)
// CHECK-NEXT: template <class... T_scale_into>
// CHECK-NEXT: static decltype(auto) helionc_kernel_scale_into(T_scale_into&&... scale_into_args) {
// CHECK-NEXT:   return (scale_into)(static_cast<T_scale_into&&>(scale_into_args)...);
// CHECK-NEXT: }
// CHECK:      // helionc: 'scale_into' on a given stream (generated, do not edit)
// CHECK-NEXT: HELION_KERNEL void scale_into(const Tensor& x, Tensor& out, double alpha, CUstream helionc_stream) {
// CHECK-NEXT:   helion::rt::StreamGuard helionc_on_stream(helionc_stream);
// CHECK-NEXT:   return helionc_kernel_scale_into(x, out, alpha);
// CHECK-NEXT: }
// CHECK:      extern "C" int helionc_scale_into(const helion::DLTensor* x, const helion::DLTensor* out, double alpha, helion::DLManagedTensor** result, void* stream) {
// CHECK-NEXT:   return helionc_c_api::call("helionc_scale_into", result, stream, [&] {
// CHECK-NEXT:     helion::Tensor helionc_x = helionc_c_api::borrow(x, "x");
// CHECK-NEXT:     helion::Tensor helionc_out = helionc_c_api::borrow(out, "out");
// CHECK-NEXT:     return helionc_kernel_scale_into(helionc_x, helionc_out, alpha);

// In a namespace, the overload and the C entry follow the function there.
// CHECK:      namespace ops {
// CHECK:      HELION_KERNEL Tensor twice(const Tensor& x, CUstream helionc_stream) {
// CHECK-NEXT:   helion::rt::StreamGuard helionc_on_stream(helionc_stream);
// CHECK-NEXT:   return helionc_kernel_twice(x);
// CHECK:      extern "C" int helionc_twice(const helion::DLTensor* x, helion::DLManagedTensor** result, void* stream) {
// CHECK:      } // namespace ops
