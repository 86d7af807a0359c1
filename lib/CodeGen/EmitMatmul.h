//===- EmitMatmul.h - A tensor-core matmul as a device-library GEMM -*- C++ -*-===//
#pragma once

#include "MatmulPlan.h"
#include "helion/CodeGen/CudaEmitter.h"

#include <ostream>
#include <string>

namespace helion::codegen {

/// Emits a kernel with `hl::dot` (the recognize-templates pass says which ones) as instantiations of
/// hd::Gemm / hd::GemmSm80 with the parameters of Kernel::gemm; reports unsupported
/// patterns and yields nullopt.
std::optional<EmittedKernel> emitMatmul(const ir::Kernel& kernel, const EmitOptions& options,
                                        DiagnosticEngine& diags);

/// What the kernels of a grouped GEMM are made of (EmitMatmul.cpp fills it in).
struct GroupedKernelParts {
  const MatmulPlan& plan;
  std::string sm90Name, sm80Name;
  std::string templateParams; ///< "class T_a, ..., int TMA_STORE"
  std::string args;           ///< the epilogue's kernel arguments: ", T_out* out, ..."
  std::string asserts90, asserts80; ///< dtype static_asserts of the two kernels
  std::string epilogueInit;   ///< the statement that makes `epi`
  std::string tIn, tOut, tOffsets; ///< A's dtype, the tma_store output's, the offsets'
};

/// The sm_90a kernel (hd::GemmGroupedSm90) of a grouped GEMM (EmitGroupedMatmul.cpp).
void emitGroupedSm90(std::ostream& os, const GroupedKernelParts& parts);
/// The sm_80 kernel (hd::GemmGroupedSm80), also f32 as tf32 on every GPU.
void emitGroupedSm80(std::ostream& os, const GroupedKernelParts& parts);
/// The row-fitting sm_90a kernel (hd::GemmGroupedRowsSm90) named `name`, for
/// GemmParams::groupedRows.
void emitGroupedRowsSm90(std::ostream& os, const GroupedKernelParts& parts,
                         const std::string& name);

} // namespace helion::codegen
