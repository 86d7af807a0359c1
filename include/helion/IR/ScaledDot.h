//===- ScaledDot.h - A dot scaled per K block before it is added -*- C++ -*-===//
//
// Block-scaled matrix products (fp8 GEMMs with per-block scales, as DeepSeek's and
// vLLM's w8a8 block kernels do) scale each K block's product before adding it:
//
//   for (auto tk : hl::tile(k, hl::block_size(128)))
//     acc = acc + hl::dot(x[tm, tk], w[tn, tk].transpose(0, 1)) *
//                 sx[tm, tk.id()][hl::all, hl::newaxis] * sw[tn.id(), tk.id()];
//
// The GEMM templates run this form when the scale S (the product of the factors
// besides the dot) splits into a factor along the rows and one along the columns:
// each K block's product goes to its own accumulator, which is then added as
// acc += part * row(r, kb) * col(c, kb) (the promotion of gemm_sm90.cuh's and
// gemm_sm80.cuh's K-scale mainloops). kBlockScale says whether an addend has that form;
// the dispatcher (DotShape.cpp) and the recognizer (RecognizeMatmul.cpp) both ask it.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <functional>
#include <optional>
#include <vector>

namespace helion::ir {

/// `dot(a, b) * f1 * f2 * ...` split by what the factors read.
struct KBlockScale {
  const Expr* dot = nullptr;          ///< the product, `hl::dot(a, b)` (two operands)
  std::vector<const Expr*> rowFactors; ///< factors that read the row tile tm (or neither)
  std::vector<const Expr*> colFactors; ///< factors that read the column tile tn
  /// The column factors read tn only through its attributes (`tn.id()`): one value per
  /// column tile of the source, so a kernel tile inside one of them loads it once.
  bool colPerTile = true;
};

/// The factors of `addend` (the term added to the accumulator, lets resolved by `let`)
/// when it is a product of one two-operand dot and at least one factor, each factor
/// pointwise over constants, scalars, loads subscripted by tm, tn, newaxis and scalar
/// expressions of the tiles' ids and begins (`tk.id()`, `tn.id()`), and the indices of
/// tm or tn; no factor reads the K tile's elements (tk itself, tk.index()) or both tm and
/// tn, a row factor has the shape [tm, 1] (or one element), a column factor [.., tn] (or
/// one element). Else nullopt.
std::optional<KBlockScale> kBlockScale(const Expr& addend, int tileM, int tileN, int tileK,
                                       const std::function<const Expr*(int var)>& let);

} // namespace helion::ir
