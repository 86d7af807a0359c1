//===- helion/IR/AtomicTargets.h - Tensors only atomics write ----*- C++ -*-===//
//
// The tensors a kernel only accumulates into: hl::atomic_add writes them, and no
// load, plain store or tile bound of the kernel touches them. Their final value
// is the sum of every addition, in any order, so a program may first add into its
// own copy and add that copy to the tensor once at the end (privatize-atomics).
// The config spec asks hasContendedAtomics to pick a persistent grid by default.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <vector>

namespace helion::ir {

/// The tensor parameters (indices into Kernel::params) that only atomic_add writes and
/// nothing else in the kernel reads or writes, in increasing order.
std::vector<int> atomicOnlyTargets(const Kernel& k);

/// True when some atomic_add into an atomic-only target is addressed by data alone: no
/// subscript is a tile or uses a tile's coordinates (a histogram's `counts[bin]`, not
/// scatter_add's `out[rows, td]`). Such adds collide on few elements, which is when a
/// shared-memory copy pays; addresses that follow the tiles spread over the tensor.
bool hasContendedAtomics(const Kernel& k);

} // namespace helion::ir
