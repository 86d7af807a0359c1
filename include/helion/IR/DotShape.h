//===- DotShape.h - Which lowering a kernel's hl::dot takes -----*- C++ -*-===//
//
// The CUDA backend has three lowerings of hl::dot: flash attention
// (lib/Transforms/AttentionRecognizer.h), the GEMM templates (MatmulRecognizer.h: a
// matmul, a bmm or the grouped GEMM) and
// the general lowering of the generic emitter (EmitDot.cpp). The GEMM shape is
// decided here from the loop structure alone, so that the config spec (which
// keys and defaults a kernel has) and the emitter agree:
//
//   for tiles in grid {            // the kernel's only top-level loop
//     ...                          // no dot here
//     for tk in tile(k) { ... }    // the one inner loop with a dot: the only dot,
//                                  // of two tensor loads (B may be transposed, A
//                                  // computed from its load: prologueLoad)
//     ...                          // no dot here either
//   }
//
// or its grouped form (grouped GEMM, examples/grouped_gemm.cpp):
//
//   for g in grid(groups) {        // the only top-level loop, one tile (the group)
//     let ... ; let ...            // lets only: the group's bounds
//     for tm in tile(start, end) { // the row loop, its only statement:
//       for tn in tile(n) {        // the column loop, whose body has the shape above
//         ...; for tk in tile(k) { ... dot ... }; ...
//       }
//     }
//   }
//
// Whether the loop then fits the template in every detail is the recognizer's to say
// (matmulTemplateTakes, helion/Transforms/Passes.h): the driver asks it once the kernel is
// analyzed, and a kernel it does not take runs its dots on the general lowering
// (Kernel::generalDots) with a warning at the recognizer's reason; kernels of any other shape with dots (two chained
// dots, a dot of computed blocks outside a K loop, dots in nested loops that carry
// values) take the general lowering; nested loops that carry nothing were made one grid
// loop by flatten-grid before any of this is asked. dotTemplate() is the one dispatch:
// codegen::emitKernel sends a kernel where it says, and the thread-layout pass, whose
// decision only the generic emitter reads, skips the kernels it sends to a template.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <functional>

namespace helion::ir {

/// Whether `e` is a constant tile: hl::full / hl::zeros of a constant or a scalar.
bool isConstantTile(const Expr& e);

/// For a pointwise node (unary, binary, where, cast, a view by all and newaxis only):
/// whether `operand` holds for each of its operands; false for any other node. The
/// element-wise trees the dot lowerings take (prologueLoad, kBlockScale) walk with it.
bool pointwiseOperands(const Expr& e, const std::function<bool(const Expr&)>& operand);

/// A dot of 3-D operands (`k[tb, tn, :].transpose(1, 2)`, `v[tb, tn, :]`): attention's
/// q @ k^T and p @ v, or a bmm's.
bool isBatchedDot(const Expr& e);

/// A dot's first operand computed from its load: `F(x[tm, tk])`, F pointwise over
/// scalars, constants, that one load site, 1-D loads of other tensors along A's K
/// (`s[tk]`) or (2-D dots) along its rows (`s[tm]`), (2-D dots) loads of other
/// tensors at A's own subscripts (`y[tm, tk]`) and the indices of A's K tile or (2-D
/// dots) row tile (`tk.index()`, `tm.index()`), whose element type is x's dtype
/// (`(x[tm, tk] * 0.5f).to(x.dtype())`, `(x[tm, tk] * s[tm][:, None]).to(x.dtype())`,
/// `(x[tm, tk] * s[tk][None, :]).to(x.dtype())`, `(x[tm, tk] * y[tm, tk]).to(x.dtype())`;
/// x is the first load over the operand's rank whose tensor has the result's dtype). The
/// GEMM templates run it as an A prologue (F applied to each k-block of A before the
/// tensor cores read it). Returns A's load, or null; `let` resolves a variable to its
/// value (null: unknown). F counts at most kMaxPrologueNodes nodes with its lets
/// substituted (the functor's size).
inline constexpr int kMaxPrologueNodes = 256;
const Expr* prologueLoad(const Expr& operand, const std::function<const Expr*(int var)>& let);

/// The tensor an A prologue `f` (a matched prologueLoad operand whose A is param `a`,
/// lets resolved by `let`) reads at A's subscripts besides A, when it is exactly one
/// (2-D dots); else -1. The sm90 GEMM stages it beside A (MatmulMatch::aStaged).
int prologueStagedTensor(const Expr& f, int a,
                         const std::function<const Expr*(int var)>& let = [](int) -> const Expr* {
                           return nullptr;
                         });

/// prologueStagedTensor of a kernel with the matmul shape (dotHasMatmulShape; not the
/// grouped GEMM), from its source loop: what the recognizer will record, for the
/// config rules that run before it (the spec, validation).
int matmulStagedTensor(const Kernel& k);

/// Whether transpose dims (d1, d2) swap the last two of `rank` dims (negative dims
/// count from the end): a matrix transposed per batch.
bool swapsLastTwo(int d1, int d2, int rank);

/// Whether any statement of `k` contains an `hl::dot` / a batched one.
bool containsDot(const Kernel& k);
bool containsBatchedDot(const Kernel& k);

/// Whether `k` is one grid loop over three tiles [tb, tm, tn]: its batched dots are a
/// bmm (the matmul template's batched form), not flash attention (a grid loop over
/// [tb, tm]).
bool isBatchedMatmulLoop(const Kernel& k);

/// Whether `k`'s dots have the matmul template's loop shape (above).
bool dotHasMatmulShape(const Kernel& k);

/// Whether `k`'s dot has the matmul shape with its product scaled per K block before it
/// is added (`acc = acc + hl::dot(a, b) * S`, helion/IR/ScaledDot.h): the templates'
/// K-scale mainloops run it.
bool dotIsKBlockScaled(const Kernel& k);

/// The row loop (`for tm in tile(start, end)`) of `k` when its dots have the grouped
/// GEMM's loop shape (above), else null.
const Stmt* groupedMatmulRowLoop(const Kernel& k);

/// The device-library template that prints `k` as a whole, or None (the generic
/// emitter, whose general dots are EmitDot.cpp's). Batched dots are flash attention
/// unless the loop is a bmm's or the grouped GEMM's; the matmul template takes the
/// matmul shape (a bmm's too) and the grouped form.
enum class DotTemplate : uint8_t { None, Attention, Matmul };
DotTemplate dotTemplate(const Kernel& k);

/// The tiles of the template that prints `k` (dotTemplate is not None), as its rules
/// (helion/Config/TemplateRules.h) name them; -1 / null where the kernel does not have
/// the template's loops (its recognizer in lib/CodeGen reports that, located).
///   matmul:    grid [b,] m, n (grouped: the row and column loops), K loop k
///   attention: grid [b, m], key loop n, headDim the accumulator's last extent
struct TemplateTiles {
  DotTemplate family = DotTemplate::None;
  const Stmt* grid = nullptr; ///< the top-level loop: errors about the config point here
  int b = -1, m = -1, n = -1, k = -1;
  bool grouped = false;
  bool bTransposed = false; ///< matmul: B read through a transpose (`y[tn, tk].T`)
  /// matmul: the product is scaled per K block before it is added (dotIsKBlockScaled):
  /// the K tile's block size is the scales' block, not free.
  bool kScaled = false;
  ExprRef headDim;
};
TemplateTiles templateTiles(const Kernel& k);

} // namespace helion::ir
