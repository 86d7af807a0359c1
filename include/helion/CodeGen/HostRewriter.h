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
#include "helion/runtime/ShapeDispatch.h"

#include <map>
#include <string>
#include <vector>

namespace helion::codegen {

/// A cubin compiled ahead of time for one instantiation (helionc compile --aot-arch).
struct AotImage {
  std::string arch;    ///< "sm_90a"
  std::string name;    ///< the name expression the launcher builds
  std::string lowered; ///< its mangled name
  std::string cubin;
};

/// The images of one launcher, embedded as the table `symbol()` returns.
struct AotLauncherImages {
  std::string symbol; ///< "helionc_aot_softmax", unique in the file
  std::vector<AotImage> images;
};

/// Per emitted kernel (a config entry's, or its long-rows kernel), its images.
using AotImageMap = std::map<const EmittedKernel*, AotLauncherImages>;

/// One compiled config of a kernel.
struct HostKernel {
  const ir::Kernel* kernel;
  const frontend::HostInfo* host;
  const EmittedKernel* emitted;
  std::vector<int64_t> registerBlockSizes; ///< value per Kernel::blockSizes entry
  /// The sizes this config was tuned for (tensor parameter name -> sizes); empty: any.
  std::map<std::string, std::vector<int64_t>> shapes;
  /// The dtypes it was tuned for (tensor parameter name -> helion::DType's name); empty: any.
  std::map<std::string, std::string> dtypes = {};
  const AotImageMap* aot = nullptr; ///< set by rewriteHost
  /// Its position among the candidates of a `"choose"` entry (config::ShapedConfig::choice;
  /// consecutive HostKernels 0, 1, ... are one entry), -1 for an entry of one config.
  int choice = -1;
};

/// The shape-keyed entries of one kernel as its launcher hands them to
/// helion::rt::pickShapeEntry: `tensors` are the kernel's tensor parameters a key may
/// name (function parameters, in order), which ShapeKey::tensor indexes.
struct ShapeTable {
  std::vector<rt::ShapeEntry> entries;
  std::vector<rt::ShapeKey> keys;
  std::vector<int64_t> sizes;
  std::vector<rt::DtypeKey> dtypeKeys; ///< dtype: the index of its name in config::dtypeNames()
  std::vector<std::string> dtypeNames; ///< helion::DType's name of each dtype key
  std::vector<int> tensors;
};
ShapeTable shapeTable(const std::vector<const HostKernel*>& entries);

/// The rewritten translation unit. Consecutive HostKernels of one kernel are the
/// entries of a shape-keyed config file, in file order: each gets its own launcher,
/// and the kernel's launcher calls the one helion::rt::pickShapeEntry picks
/// (helion/runtime/ShapeDispatch.h) for the tensors' sizes at each call. After each
/// kernel function come its stream overload and its C entry; `aot` images are
/// embedded at the end of the file, one table per launcher that has some.
std::string rewriteHost(const std::string& fileName, const std::string& text,
                        const std::vector<HostKernel>& kernels, const AotImageMap& aot = {});

} // namespace helion::codegen
