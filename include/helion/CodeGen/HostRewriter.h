//===- helion/CodeGen/HostRewriter.h - kernel.cpp -> kernel.helion.cpp -*- C++ -*-===//
//
// The kernel file is copied with each kernel's host code kept verbatim: its first
// device loop becomes a call to a generated launcher (its other top-level loops
// share that launch and are removed), `hl::register_block_size(...)` becomes the
// config's value, and the launcher (CUDA source as a string, template arguments
// from the tensors' dtypes and sizes, grid from the config) is inserted before it.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/Frontend/Frontend.h"

#include <map>
#include <string>
#include <vector>

namespace helion::codegen {

/// One compiled config of a kernel.
struct HostKernel {
  const ir::Kernel* kernel;
  const frontend::HostInfo* host;
  const EmittedKernel* emitted;
  std::vector<int64_t> registerBlockSizes; ///< value per Kernel::blockSizes entry
  /// The sizes this config was tuned for (tensor parameter name -> sizes); empty: any.
  std::map<std::string, std::vector<int64_t>> shapes;
};

/// The rewritten translation unit. Consecutive HostKernels of one kernel are the
/// entries of a shape-keyed config file, in file order: each gets its own launcher,
/// and the kernel's launcher calls the one helion::rt::pickShapeEntry picks
/// (helion/runtime/ShapeDispatch.h) for the tensors' sizes at each call.
std::string rewriteHost(const std::string& fileName, const std::string& text,
                        const std::vector<HostKernel>& kernels);

} // namespace helion::codegen
