// REQUIRES: frontend, host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %s -o %t
// RUN: %host_cxx -DHELIONC_C_API %t/host-names.helion.cpp
// RUN: FileCheck %s < %t/host-names.helion.cpp
// A kernel's tensors and scalars are p_<name> in its launcher too (CudaNames.h), so
// names like the launchers' own locals (kSource, kernelKey, found, kernel, name, args,
// programs, grid, a0; the matmul launcher's M, N, K, smem, ctas, tf32, sm90) compile.
// Before, each was declared twice in the launcher ("declaration shadows a parameter").
// Messages and the functions users call keep the source's names.
#include <helion/hl.h>

using helion::Tensor;

// CHECK: {{^}}static void helionc_launch_locals(const helion::Tensor& p_x, float p_kSource,
// CHECK: {{^}}  HELION_CHECK(p_x.device().type == helion::DeviceType::CUDA, "locals: tensor 'x' must be on a CUDA device");
// CHECK: {{^}}  float a2 = static_cast<float>(p_kSource);
// CHECK: {{^}}  helionc_launch_locals(x, kSource, kernelKey, kernelCache, found, kernel, name, a0, args, programs, grid, out);
HELION_KERNEL Tensor locals(const Tensor& x, float kSource, float kernelKey, float kernelCache,
                            float found, float kernel, float name, float a0, float args,
                            float programs, float grid) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = x[tile] * kSource * kernelKey + kernelCache * found + kernel * name +
                a0 * args + programs * grid;
  return out;
}

// CHECK: {{^}}static void helionc_launch_mm_locals(const helion::Tensor& p_args, const helion::Tensor& p_grid, int64_t p_M, int64_t p_N, int64_t p_K, const helion::Tensor& p_ctas) {
// CHECK: {{^}}  const int64_t M = p_M, N = p_N, K = p_K;
HELION_KERNEL Tensor mm_locals(const Tensor& args, const Tensor& grid) {
  auto [M, K] = args.shape<2>();
  auto [K2, N] = grid.shape<2>();
  HELION_CHECK(K == K2, "mm_locals: inner dimensions differ");
  Tensor ctas = helion::empty({M, N}, args.dtype(), args.device());
  for (auto [tm, tn] : hl::tile({M, N})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(K))
      acc = hl::addmm(acc, args[tm, tk], grid[tk, tn]);
    ctas[tm, tn] = acc;
  }
  return ctas;
}

// The C entry's and the stream overload's own names step aside (result_, stream_,
// helionc_stream_, helionc_result_ ...) where a parameter has them.
// CHECK: {{^}}// helionc: 'entry_names' on a given stream
// CHECK-NEXT: {{^}}HELION_KERNEL Tensor entry_names(const Tensor& result, const Tensor& helionc_result, float stream,
// CHECK-NEXT: {{^}} float helionc_stream, float helionc_on_stream, CUstream helionc_stream_) {
// CHECK-NEXT: {{^}}  helion::rt::StreamGuard helionc_on_stream_(helionc_stream_);
// CHECK: {{^}}extern "C" int helionc_entry_names(const helion::DLTensor* result, const helion::DLTensor* helionc_result, float stream, float helionc_stream, float helionc_on_stream, helion::DLManagedTensor** result_, void* stream_) {
// CHECK-NEXT: {{^}}  return helionc_c_api::call("helionc_entry_names", result_, stream_, [&] {
// CHECK-NEXT: {{^}}    helion::Tensor helionc_result_ = helionc_c_api::borrow(result, "result");
// CHECK-NEXT: {{^}}    helion::Tensor helionc_helionc_result = helionc_c_api::borrow(helionc_result, "helionc_result");
HELION_KERNEL Tensor entry_names(const Tensor& result, const Tensor& helionc_result, float stream,
                                 float helionc_stream, float helionc_on_stream) {
  Tensor out = helion::empty_like(result);
  for (auto tile : hl::tile(result.sizes()))
    out[tile] = result[tile] * stream + helionc_result[tile] * helionc_stream * helionc_on_stream;
  return out;
}

// A parameter named like the kernel hides it inside the entries, which therefore call it
// through a forwarder defined before them (named to avoid the parameters: a parameter
// takes its first choice here). Before, the stream overload's `return gate(gate, ...)`
// and the C entry's call did not compile ("no match for call to (const helion::Tensor)").
// CHECK: {{^}}static decltype(auto) helionc_kernel_gate_(T_gate&&... gate_args) {
// CHECK-NEXT: {{^}}  return (gate)(static_cast<T_gate&&>(gate_args)...);
// CHECK: {{^}}HELION_KERNEL Tensor gate(const Tensor& gate, const Tensor& helionc_kernel_gate,
// CHECK-NEXT: {{^}}                          double helionc_c_api, CUstream helionc_stream) {
// CHECK-NEXT: {{^}}  helion::rt::StreamGuard helionc_on_stream(helionc_stream);
// CHECK-NEXT: {{^}}  return helionc_kernel_gate_(gate, helionc_kernel_gate, helionc_c_api);
// CHECK: {{^}}extern "C" int helionc_gate(const helion::DLTensor* gate, const helion::DLTensor* helionc_kernel_gate, double helionc_c_api, helion::DLManagedTensor** result, void* stream) {
// CHECK: {{^}}    return helionc_kernel_gate_(helionc_gate, helionc_helionc_kernel_gate, helionc_c_api);
HELION_KERNEL Tensor gate(const Tensor& gate, const Tensor& helionc_kernel_gate,
                          double helionc_c_api) {
  Tensor out = helion::empty_like(gate);
  for (auto tile : hl::tile(gate.sizes()))
    out[tile] = gate[tile] * helionc_kernel_gate[tile] * helionc_c_api;
  return out;
}
