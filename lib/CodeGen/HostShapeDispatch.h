//===- HostShapeDispatch.h - One launcher per shape-keyed entry --*- C++ -*-===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <string>
#include <vector>

namespace helion::codegen {

/// `helionc_entry_K(x, y)`: the entry pickShapeEntry picks for these tensors.
std::string entryCall(const ir::Kernel& k);

/// Launchers for the entries of a shape-keyed config, and the kernel's launcher that
/// runs the one pickShapeEntry picks; a static table, no allocation or lock per call.
std::string shapeDispatch(const std::vector<const HostKernel*>& entries,
                          const std::string& fileName);

} // namespace helion::codegen
