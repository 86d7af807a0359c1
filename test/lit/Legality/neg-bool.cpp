// REQUIRES: frontend, ref-cxx
// One rule, one message: `-` of a b8 block is not defined (found by test/fuzz: the GPU
// computed -1 where ref mode kept true). helionc reports it at the negation; ref mode
// throws the same text when the kernel runs.
//
// RUN: %exitcode %helionc compile %s --emit ir 2>&1 | FileCheck %s --check-prefix=HELIONC
// HELIONC: neg-bool.cpp:21:{{[0-9]+}}: error: negation (-) of a b8 block is not defined; use ! to negate a mask
// HELIONC: exit code: 1
//
// RUN: %ref_cxx -DREF_MAIN %s -o %t.exe
// RUN: %t.exe 2>&1 | FileCheck %s --check-prefix=REF
// REF: neg_bool: negation (-) of a b8 block is not defined; use ! to negate a mask
#include <helion/hl.h>
#include <iostream>
using helion::Tensor;

HELION_KERNEL Tensor neg_bool(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto i : hl::grid(m))
    out[i, hl::all] = hl::sigmoid(-(x[i, hl::all] >= 0));
  return out;
}

#ifdef REF_MAIN
int main() {
  try {
    neg_bool(helion::zeros({4, 4}, helion::DType::f32));
    std::cout << "neg_bool: no error\n";
  } catch (const helion::Error& e) {
    std::cout << "neg_bool: " << e.what() << "\n";
  }
}
#endif
