//===- HostChoice.h - The launcher of a "choose" entry ---------*- C++ -*-===//
//
// A config entry with `"choose": [...]` (configs/README.md) compiles to one launcher
// per candidate, `helionc_launch_K_eN`, and this function around them, which the
// kernel's launcher calls when the shape pick lands on the first candidate.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <string>
#include <vector>

namespace helion::codegen {

/// `helionc_choose_K_eF`: the run-time choice among the `count` candidates that start
/// at entry `first` (helion/runtime/Choice.h), keyed by the tensor parameters `keys`:
/// on the first call for a key it times them on scratch copies of the tensors the
/// kernel stores to, then runs the winner on the real arguments; later calls find the
/// winner without a lock.
std::string chooser(const ir::Kernel& k, const std::vector<int>& keys, size_t first,
                    size_t count);

} // namespace helion::codegen
