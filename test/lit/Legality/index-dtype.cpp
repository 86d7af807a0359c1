// REQUIRES: frontend, ref-cxx
// One rule, one message: an index block must hold integers. helionc reports it at the
// index's location; ref mode throws the same text when the kernel runs.
//
// RUN: %exitcode %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=HELIONC
// HELIONC: index-dtype.cpp:27:{{[0-9]+}}: error: load: an index block must have an integer dtype, got f32
// HELIONC: index-dtype.cpp:37:{{[0-9]+}}: error: subscript: an index block must have an integer dtype, got f32
// HELIONC: index-dtype.cpp:46:{{[0-9]+}}: error: store: an index block must have an integer dtype, got b8
// HELIONC: exit code: 1
//
// RUN: %ref_cxx -DREF_MAIN %s -o %t.exe
// RUN: %t.exe 2>&1 | FileCheck %s --check-prefix=REF
// REF: load_f32: load: an index block must have an integer dtype, got f32
// REF: gather_f32: subscript: an index block must have an integer dtype, got f32
// REF: store_b8: store: an index block must have an integer dtype, got b8
#include <helion/hl.h>
#include <iostream>
using helion::Tensor;

// Line numbers matter: the HELIONC lines above name them.
HELION_KERNEL Tensor load_f32(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({x.size(0), x.size(1)})) {
    auto rows = tm.index().to(hl::f32)[hl::all, hl::newaxis];
    auto cols = tn.index()[hl::newaxis, hl::all];
    out[tm, tn] = hl::load(x, {
                                  rows,
                                  cols});
  }
  return out;
}

HELION_KERNEL Tensor gather_f32(const Tensor& x, const Tensor& w) {
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({x.size(0), x.size(1)})) {
    out[tm, tn] = x[tm, tn] + w[
                                tn.index().to(hl::f32)][hl::newaxis, hl::all];
  }
  return out;
}

HELION_KERNEL Tensor store_b8(const Tensor& x) {
  Tensor out = helion::empty_like(x);
  for (auto [tm, tn] : hl::tile({x.size(0), x.size(1)})) {
    hl::store(out, {
                      tm.index()[hl::all, hl::newaxis] > 0, tn.index()[hl::newaxis, hl::all]}, x[tm, tn]);
  }
  return out;
}

#ifdef REF_MAIN
template <class F> void expectError(const char* name, F&& f) {
  try {
    f();
    std::cout << name << ": no error\n";
  } catch (const helion::Error& e) {
    std::cout << name << ": " << e.what() << "\n";
  }
}
int main() {
  Tensor x = helion::zeros({4, 4}, helion::DType::f32);
  Tensor w = helion::zeros({4}, helion::DType::f32);
  expectError("load_f32", [&] { load_f32(x); });
  expectError("gather_f32", [&] { gather_f32(x, w); });
  expectError("store_b8", [&] { store_b8(x); });
}
#endif
