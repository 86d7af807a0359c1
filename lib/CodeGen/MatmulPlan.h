//===- MatmulPlan.h - A recognized matmul, for the emitters -------*- C++ -*-===//
//
// The matmul pattern (lib/Transforms/MatmulRecognizer.h) is recognized by the
// recognize-templates pass and its config mapped by template-plan; the emitters
// (EmitMatmul.cpp, EmitGroupedMatmul.cpp, MatmulLauncher.cpp) print the result.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/IR/TemplateMatch.h"
#include "helion/Support/Diagnostics.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace helion::codegen {

/// What the matmul emitters print: the recognized loop (Kernel::matmul, the
/// recognize-templates pass) with the template's parameters (Kernel::gemm,
/// template-plan).
struct MatmulPlan : ir::MatmulMatch {
  ir::GemmParams gemm;
  /// The store tma_store performs (the single store, when GemmParams::tmaStore), or -1.
  int tmaStoreParam = -1;
};

/// The sm80 kernel's tile for f32 operands, which run as tf32 (mma.sync m16n8k8)
/// on every GPU: wgmma tf32 reads both operands K-major, and B [K, N] is not.
/// The sm80 tile capped at 128 x 128 (128 x 256 in f32 needs 255 registers and
/// spills), 4 stages of 32 KB. The emitter and the launcher both use this.
struct Tf32Tile {
  int bm, bn, stages;
};
inline Tf32Tile tf32Tile(int sm80Bm, int sm80Bn) {
  return {std::min(sm80Bm, 128), std::min(sm80Bn, 128), 4};
}

/// The C++ test (of the device's `sizeof(T_out)` or the host's `out.element_size()`,
/// `bytes`) for an output element tma_store writes at BN columns, "" when every one:
/// 2- and 4-byte elements always; 8-bit ones (128 to a 128-byte box, st.shared of pairs,
/// gemm_sm90_epilogue.cuh) at BN 256, which any C tile fitting beside the ring splits
/// into at most 2 slices of whole boxes. The kernel and its launcher must decide alike.
inline std::string tmaStoreSizeTest(const std::string& bytes, int bn) {
  return bn % 256 == 0 ? "" : bytes + " >= 2";
}
/// "TMA_STORE" and the size test: the kernel's epilogue form argument.
inline std::string tmaStoreForm(const std::string& tOut, int bn) {
  const std::string t = tmaStoreSizeTest("sizeof(" + tOut + ")", bn);
  return "TMA_STORE" + (t.empty() ? "" : " && " + t) +
         " ? hd::EpilogueForm::tma_store : hd::EpilogueForm::pairs";
}

/// The plan of a kernel the passes recognized as a matmul; nullopt after reporting an
/// internal error when they did not (the pipeline did not run).
std::optional<MatmulPlan> planMatmul(const ir::Kernel& kernel, DiagnosticEngine& diags);

} // namespace helion::codegen
