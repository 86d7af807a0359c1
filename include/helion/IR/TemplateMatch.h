//===- helion/IR/TemplateMatch.h - A recognized template loop ---*- C++ -*-===//
//
// The recognize-templates pass checks that a kernel ir::dotTemplate sends to a
// device-library template has the template's loop in every detail (the matmul's
// K loop and epilogue, flash attention's online softmax) and records what it found
// as one of these typed nodes (Kernel::matmul, Kernel::attention): which tiles and
// tensors play which part, the accumulators, the score function, the epilogue's
// statements. The template emitters print from them; they recognize nothing.
//
//   matmul: a %x[tm, tk], b %y[tk, tn], acc %acc.0, k loop tk, epilogue 1, tma_store %out
//   (a computed A adds `, a prologue <F of %x's load>`; a product scaled per K block
//   `, k-scale rows <R> columns <C>`)
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <optional>
#include <set>
#include <vector>

namespace helion::ir {

/// A matmul, a bmm or a grouped GEMM (lib/Transforms/RecognizeMatmul.cpp).
struct MatmulMatch {
  StmtRef grid;              ///< the top-level loop (the grouped GEMM's group loop)
  int tileB = -1;            ///< the batch tile of a batched matmul (bmm), else -1
  int tileM = -1, tileN = -1, tileK = -1;
  int a = -1, b = -1;        ///< tensor params read as A [M, K] and B [K, N]
  bool bTransposed = false;  ///< B read as y[tn, tk].transpose(0, 1): [N, K]
  /// A computed from its load, F(x[tm, tk]) with the K loop's lets substituted
  /// (helion/IR/DotShape.h, prologueLoad): the templates' A prologue. Null: A is the load.
  ExprRef aPrologue;
  /// The one other tensor F reads at A's subscripts (`y[tm, tk]`; DotShape.h,
  /// prologueStagedTensor): on sm90 its k-blocks are loaded by TMA beside A's and F
  /// reads its element from registers. -1: none (or several, read per element).
  int aStaged = -1;
  int accVar = -1;
  /// A product scaled per K block before it is added, `acc = acc + hl::dot(a, b) * S`
  /// (helion/IR/ScaledDot.h): S = kScaleRow * kScaleCol, each the product of its factors
  /// with the K loop's lets substituted, or null (1). kScaled: the form was found (the
  /// templates' K-scale mainloops). kScaleColPerTile: kScaleCol reads tn only by its id
  /// (one value per column tile).
  bool kScaled = false;
  ExprRef kScaleRow, kScaleCol;
  bool kScaleColPerTile = true;
  /// Grouped GEMM: the group tile g (hl::grid), the tensor of group offsets, and the
  /// group loop's lets (the row loop's bounds, not usable elsewhere). tileG is -1 else.
  int tileG = -1, offsets = -1;
  std::set<int> groupLets;
  /// The statements after the K loop (lets and stores), in order.
  std::vector<StmtRef> epilogue;
  /// The epilogue's only store when there is one (tma_store can write it when the
  /// column tile allows: GemmParams::tmaStore), else -1.
  int singleStoreParam = -1;
};

/// Flash attention (lib/Transforms/RecognizeAttention.cpp): the online softmax over
/// key blocks, with a pointwise score S and epilogue E.
struct AttentionMatch {
  StmtRef grid;
  int tileB = -1, tileM = -1, tileN = -1;
  int q = -1, k = -1, v = -1;          ///< tensor params
  int accVar = -1, sumVar = -1, maxVar = -1;
  ExprRef score;                       ///< S: a pointwise expression of `dot`
  ExprRef dot;                         ///< the q k^T product inside `score`
  /// S is where(tm.index() >= tn.index(), S', -inf): keys past a query row score -inf,
  /// so the kernel reads key blocks up to the diagonal only.
  bool causal = false;
  /// S (without its causal mask) is dot * f with f free of the dot and the tile indices
  /// (a scale): the kernels may then take the max over the raw products and fold f into
  /// the exponent's FMA (max_j x f = f max_j x for f > 0). Null when it is not.
  ExprRef scoreFactor;
  ExprRef headDim;                     ///< acc's last extent (a specialized param or a constant)
  /// The grid loop's statements after the key loop (lets, assignments, stores).
  std::vector<StmtRef> epilogue;
};

/// Two chained dots, `act(a @ b1) @ b2` per output tile (lib/IR/RecognizeChain.cpp):
/// a kernel the generic emitter prints that also has the chain template's loop, which
/// runs it on sm_90a when the config and the tensors fit (ChainParams).
///
///   for %tm, %tn in tile(m, n) {
///     let %acc = full([tm, tn], 0, f32)
///     for %th in tile(h) {
///       let %s = full([tm, th], 0, f32)
///       for %tk in tile(k) { %s = dot(load a[tm, tk], load b1[tk, th], %s) }  // or b1t[th, tk]^T
///       %acc = dot(cast(F(%s)), load b2[th, tn], %acc)                     // F pointwise
///     }
///     E(%acc): lets, stores out[tm, tn]
///   }
///
/// Batched (a batch tile tb of block size 1 first in every tile and subscript):
/// for %tb, %tm, %tn, acc [tb, tm, tn], a[tb, tm, tk], ... The first dot's K may be a
/// whole dim (`let %s = dot(a[tm, :], b1t[th, :]^T)`, no K loop: tileK -1) and so may
/// the output columns (acc [tm, :], b2[th, :], out[tm, :], no column tile: tileN -1).
struct ChainMatch {
  StmtRef grid;
  int tileB = -1;                ///< the batch tile, or -1
  int tileM = -1, tileN = -1, tileH = -1, tileK = -1; ///< tileN, tileK: -1 when whole
  int a = -1, b1 = -1, b2 = -1;  ///< tensor params
  bool b1KMajor = false;         ///< b1 read as b1t[th, tk].transpose(0, 1): [H, K]
  int accVar = -1, hiddenVar = -1;
  /// cast(F(%hiddenVar)), lets substituted: F the activation, pointwise in the first
  /// dot's result, the cast its rounding to the second dot's A dtype.
  ExprRef act;
  /// The grid loop's statements after the hidden loop (lets, assignments, stores).
  std::vector<StmtRef> epilogue;
  /// The extents (host-evaluable integer scalars): batches (null unbatched), rows M,
  /// output columns N, hidden columns H, the first dot's K.
  ExprRef batch, rows, cols, hidden, depth;
};

/// The chain loop of a kernel the generic emitter prints, or nullopt, silently: such a
/// kernel runs as the generic kernel (lib/IR/RecognizeChain.cpp). recognize-templates
/// records it as Kernel::chain; the default config picks tiles the template takes.
std::optional<ChainMatch> recognizeChain(const Kernel& kernel);

} // namespace helion::ir
