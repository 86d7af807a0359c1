//===- HostShapeDispatch.h - One launcher per shape-keyed entry --*- C++ -*-===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <string>
#include <vector>

namespace helion::codegen {

/// `helionc_entry_K(x, y)`: the entry pickShapeEntry picks for these tensors, named as
/// in the source (`generated` false: the user's function) or as in a launcher
/// (`generated`: p_x, CudaNames.h).
std::string entryCall(const ir::Kernel& k, bool generated);

/// Launchers for the entries of a shape-keyed config, and the kernel's launcher that
/// runs the one pickShapeEntry picks; a static table, no allocation or lock per call.
std::string shapeDispatch(const std::vector<const HostKernel*>& entries,
                          const std::string& fileName);

} // namespace helion::codegen
