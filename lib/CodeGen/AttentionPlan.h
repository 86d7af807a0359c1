//===- AttentionPlan.h - Recognizing flash attention --------------*- C++ -*-===//
//
// A kernel with a batched (3-D) `hl::dot` lowers to the device library's flash
// attention (attention_sm80.cuh, attention_sm90.cuh) when its grid loop is this
// online softmax:
//
//   for %tb, %tm in tile(bh, m) {                  // grid: tb block 1, tm block BM
//     let %mi  = full([tb, tm], -inf, f32)         // running row max
//     let %li  = full([tb, tm], 0, f32)            // running row sum
//     let %acc = full([tb, tm, d], 0, f32)         // unnormalized output
//     let %qt  = load q[tb, tm, :]                 // optional: the q tile
//     for %tn in tile(n) {                         // key loop, block BN
//       let %s     = S(dot(qt, load k[tb, tn, :].transpose(1, 2)))   // pointwise S
//       let %mn    = maximum(%mi, amax(%s, 2))
//       let %p     = exp(%s - %mn[:, :, newaxis])
//       let %alpha = exp(%mi - %mn)
//       %li  = %li * %alpha + sum(%p, 2)
//       %acc = dot(%p.to(v.dtype()), load v[tb, tn, :], %acc * %alpha[:, :, newaxis])
//       %mi  = %mn
//     }
//     let / store out[tb, tm, :] = E(%acc, %li, %mi)   // pointwise E
//     store lse[tb, tm] = R(%li, %mi)                  // optional per-row results
//   }
//
// The key loop is evaluated symbolically (lets and assignments substituted), and
// the value each carried variable has after one iteration must be the formula
// above up to commuted operands and how it is split into statements (the
// rescale may be its own `acc = acc * alpha[...]`). S, E and R are free pointwise
// expressions (S may also use tm.index() and tn.index(): a mask): they become
// functors generated from the IR (EmitAttention.cpp).
// Anything else is reported at its location.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/Config/Config.h"
#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <optional>
#include <vector>

namespace helion::codegen {

struct AttentionPlan {
  const ir::Stmt* grid = nullptr;
  int tileB = -1, tileM = -1, tileN = -1;
  int q = -1, k = -1, v = -1;          ///< tensor params
  int accVar = -1, sumVar = -1, maxVar = -1;
  ir::ExprRef score;                   ///< S: a pointwise expression of `dot`
  const ir::Expr* dot = nullptr;       ///< the q k^T product inside `score`
  /// S is where(tm.index() >= tn.index(), S', -inf): keys past a query row score -inf,
  /// so the kernel reads key blocks up to the diagonal only.
  bool causal = false;
  ir::ExprRef headDim;                 ///< acc's last extent (a specialized param or a constant)
  /// The grid loop's statements after the key loop (lets, assignments, stores).
  std::vector<const ir::Stmt*> epilogue;

  /// The device library's template parameters (Kernel::flash, decided by template-plan).
  AttentionParams flash;
};

/// The plan of a kernel with a batched `hl::dot`; nullopt after reporting why it
/// is not supported.
std::optional<AttentionPlan> planAttention(const ir::Kernel& kernel, DiagnosticEngine& diags);

} // namespace helion::codegen
