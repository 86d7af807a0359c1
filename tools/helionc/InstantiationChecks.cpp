//===- InstantiationChecks.cpp - Dtypes an instantiation cannot take --------===//
//
// Checks of one --dtype signature against what the kernels can run, reported at the
// source location before NVRTC would fail on a static_assert without one.
//===----------------------------------------------------------------------===//
#include "InstantiationChecks.h"
#include "helion/IR/Visitor.h"
#include "helion/hl/rules.h"

namespace helion::tool {

/// False (with a diagnostic at the call) when an hl::atomic_add of `k` targets a tensor
/// whose dtype in `sig` has no atomic add.
bool atomicDtypesOk(const ir::Kernel& k, const std::vector<ir::ScalarType>& sig,
                    DiagnosticEngine& diags) {
  bool ok = true;
  ir::walkStmts(k.body, [&](const ir::Stmt& s) {
    const char* dtype = s.atomicAdd ? ir::scalarTypeName(sig.at(s.param)) : "f32";
    if (!rules::isAtomicDtype(dtype)) {
      diags.error(s.loc, rules::atomicDtypeMessage(dtype));
      ok = false;
    }
  });
  return ok;
}

/// False (with a diagnostic at the dot) when the tensor-core matmul of `ek` would
/// multiply 8-bit floats in a way the kernels do not take: operands of two dtypes, or
/// an 8-bit B read as [K, N] (the tensor cores read 8-bit operands K-major only). The
/// generated code's static_asserts say the same, without a source location.
bool matmulDtypesOk(const ir::Kernel& k, const codegen::EmittedKernel& ek,
                    const std::vector<ir::ScalarType>& sig, DiagnosticEngine& diags) {
  if (!ek.matmul)
    return true;
  const ir::ScalarType a = sig.at(ek.matmul->a), b = sig.at(ek.matmul->b);
  if (!ir::isFloat8(a) && !ir::isFloat8(b))
    return true;
  const ir::Expr* dot =
      ir::findExpr(k.body, [](const ir::Expr& e) { return e.kind == ir::ExprKind::Dot; });
  const ir::SourceLoc& loc = dot ? dot->loc : k.loc;
  if (ek.matmul->groups) {
    diags.error(loc, std::string("a grouped GEMM of ") + ir::scalarTypeName(ir::isFloat8(a) ? a : b) +
                         " operands is not supported: the grouped kernels take f16, bf16 and f32");
    return false;
  }
  if (a != b) {
    diags.error(loc, std::string("both operands of a tensor-core hl::dot must have the same "
                                 "dtype, got ") + ir::scalarTypeName(a) + " and " +
                         ir::scalarTypeName(b));
    return false;
  }
  if (!ek.matmul->bTransposed) {
    const ir::SourceLoc& opLoc = dot && dot->operands.size() >= 2 ? dot->operands[1]->loc : loc;
    diags.error(opLoc, std::string("hl::dot of ") + ir::scalarTypeName(a) +
                           " needs its second operand as w[tn, tk].transpose(0, 1) of a [N, K] "
                           "tensor: the tensor cores read 8-bit operands K-major only");
    return false;
  }
  return true;
}

} // namespace helion::tool
