// REQUIRES: frontend, host-cxx
// Found by test/fuzz (batch b0006): a kernel with many tensors has a KernelCache key
// of more than 16 integers (the device, a dtype per tensor, ...) and the generated
// launcher did not compile (static_assert "KernelCache key too long"). Keys now have
// any length.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %helionc compile %s -o %t
// RUN: FileCheck %s < %t/many-tensors-cache-key.helion.cpp
// RUN: %host_cxx %t/many-tensors-cache-key.helion.cpp
// CHECK: const std::int64_t kernelKey[] = {helion::rt::currentDevice(),
// CHECK: kernelCache.find(kernelKey)
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor>
many(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& d, const Tensor& e,
     const Tensor& f, const Tensor& g, const Tensor& h, const Tensor& i) {
  auto [n] = a.shape<1>();
  Tensor o0 = helion::empty({n}, a.dtype(), a.device());
  Tensor o1 = helion::empty({n}, b.dtype(), a.device());
  Tensor o2 = helion::empty({n}, c.dtype(), a.device());
  Tensor o3 = helion::empty({n}, d.dtype(), a.device());
  Tensor o4 = helion::empty({n}, e.dtype(), a.device());
  Tensor o5 = helion::empty({n}, f.dtype(), a.device());
  Tensor o6 = helion::empty({n}, g.dtype(), a.device());
  Tensor o7 = helion::empty({n}, h.dtype(), a.device());
  Tensor o8 = helion::empty({n}, i.dtype(), a.device());
  for (auto t : hl::tile(n)) {
    o0[t] = a[t];
    o1[t] = b[t];
    o2[t] = c[t];
    o3[t] = d[t];
    o4[t] = e[t];
    o5[t] = f[t];
    o6[t] = g[t];
    o7[t] = h[t];
    o8[t] = i[t];
  }
  return {o0, o1, o2, o3, o4, o5, o6, o7, o8};
}
