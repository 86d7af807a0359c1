//===- CudaEmitter.cpp - Typed IR -> CUDA C++ ------------------------------===//
//
// One CTA runs one tile of the grid loop at a time. Every value is a per-thread
// register array over the *layout axes* it has (tiles of the loops, reduction
// axes). The layout gives each axis S elements (its block size), T threads and
// E = S / T elements per thread; the innermost axis (the contiguous dim of the
// first load) also gets vectors of V elements, so loads and stores are 16 bytes.
//
//   softmax, 1 row per CTA, RDIM0 = 8192, 256 threads, bf16 (VEC = 8):
//     a0: S = 8192, V = 8, T = 256, E = 32     tm: S = 1, T = 1, E = 1
//     let %values = load   ->  float v0[1][32], eight 16-byte loads per thread
//     amax(values, 1)      ->  local max of 32, then a 256-thread axis_reduce
//
// Broadcasting is free (a value without an axis is replicated over its threads),
// and a reduction is a local loop plus axis_reduce. A looped reduction axis
// (reduction_loops[a] = N) is processed in chunks of N: values over that axis are
// not kept but recomputed in each chunk loop that needs them (see emitChunked).
//===----------------------------------------------------------------------===//
#include "helion/CodeGen/CudaEmitter.h"

#include "EmitAttention.h"
#include "EmitChain.h"
#include "EmitMatmul.h"
#include "helion/IR/DotShape.h"
#include "EmitterState.h"

#include <sstream>

namespace helion::codegen {

const char* deviceTypeName(ir::ScalarType t) {
  switch (t) {
  case ir::ScalarType::F16: return "hd::f16";
  case ir::ScalarType::BF16: return "hd::bf16";
  case ir::ScalarType::F32: return "float";
  case ir::ScalarType::F64: return "double";
  case ir::ScalarType::I8: return "hd::int8";
  case ir::ScalarType::I32: return "hd::int32";
  case ir::ScalarType::I64: return "hd::int64";
  case ir::ScalarType::B8: return "bool";
  case ir::ScalarType::U8: return "hd::uint8";
  case ir::ScalarType::F8E4M3: return "hd::f8e4m3";
  case ir::ScalarType::F8E5M2: return "hd::f8e5m2";
  }
  return "float";
}

std::optional<EmittedKernel> emitKernel(const ir::Kernel& kernel, const EmitOptions& options,
                                        DiagnosticEngine& diags) {
  // Batched products (flash attention) and matrix products go to the device
  // library's kernels as a whole (recognized by the recognize-templates pass), as
  // ir::dotTemplate says (helion/IR/DotShape.h); dots of any other shape stay in the
  // generic emitter (EmitDot.cpp).
  switch (ir::dotTemplate(kernel)) {
  case ir::DotTemplate::Attention: return emitAttention(kernel, options, diags);
  case ir::DotTemplate::Matmul: return emitMatmul(kernel, options, diags);
  case ir::DotTemplate::None: break;
  }
  std::optional<EmittedKernel> out = Emitter(kernel, options, diags).run();
  // Two chained dots whose config fits the chain template: its kernel beside the
  // generic one, for the launcher to run where the device and the tensors allow.
  if (out)
    if (std::optional<EmittedKernel> chain = emitChain(kernel, options))
      out->chain = std::make_shared<const EmittedKernel>(std::move(*chain));
  return out;
}

} // namespace helion::codegen
