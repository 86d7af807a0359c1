//===- helion/IR/AtomicTargets.h - Tensors only atomics write ----*- C++ -*-===//
//
// The tensors a kernel only accumulates into: hl::atomic_add writes them, and no
// load, plain store or tile bound of the kernel touches them. Their final value
// is the sum of every addition, in any order, so a program may first add into its
// own copy and add that copy to the tensor once at the end (privatize-atomics).
// The config spec asks the same question to pick a persistent grid by default.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <vector>

namespace helion::ir {

/// The tensor parameters (indices into Kernel::params) that only atomic_add writes and
/// nothing else in the kernel reads or writes, in increasing order.
std::vector<int> atomicOnlyTargets(const Kernel& k);

} // namespace helion::ir
