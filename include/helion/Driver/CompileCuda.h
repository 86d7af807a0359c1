//===- helion/Driver/CompileCuda.h - A typed kernel and a config to CUDA -*- C++ -*-===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"

namespace helion::driver {

/// Compiles a typed kernel (after the analysis passes) under `config`: runs the config
/// passes of ir::pipeline() on it, checks that its loops unroll to a size NVRTC
/// compiles, prints the decided IR as CUDA (codegen::emitKernel) and, for a kernel whose
/// reductions keep whole rows in registers, adds the long-rows variant
/// (EmittedKernel::longRows). Unsupported constructs and configs are reported at their
/// location and yield nullopt.
std::optional<codegen::EmittedKernel> compileCuda(const ir::Kernel& kernel,
                                                  const config::Config& config,
                                                  const codegen::EmitOptions& options,
                                                  DiagnosticEngine& diags);

} // namespace helion::driver
