//===- MatmulPlan.h - Recognizing tensor-core matrix products ---*- C++ -*-===//
//
// The CUDA backend lowers a kernel with `hl::dot` only when its grid loop is the
// matmul pattern, which it hands whole to the device library's GEMMs
// (gemm_sm90.cuh, gemm_sm80.cuh) with an epilogue functor made from the IR:
//
//   for %tm, %tn in tile(m, n) {                 // grid: BM x BN tiles, begin 0
//     let %acc = full([tm, tn], 0.0, f32)        // the accumulator
//     for %tk in tile(k) {                       // K loop, block size BK = 64
//       %acc = dot(load x[tm, tk], load y[tk, tn], %acc)   // or acc + dot(...)
//     }
//     let %e = <pointwise of %acc, loads at [tm, tn] / [tn] / [tm], scalars>
//     store out[tm, tn] = <pointwise of %acc, %e, ...>     // one or more stores
//   }
//
// or batched (bmm): a grid loop over [tb, tm, tn] whose batch tile has block
// size 1, a 3-D accumulator full([tb, tm, tn], 0.0, f32), operands x[tb, tm, tk]
// and y[tb, tk, tn] (or y[tb, tn, tk].transpose(1, 2)), stores to out[tb, tm, tn];
// epilogue loads may also index tb.
//
// or grouped (grouped GEMM, GroupedMatmulPlan.cpp): a grid loop over groups g whose
// row loop tm runs from offsets[g] to offsets[g + 1] and holds the column loop tn,
// whose body is the matmul's with B read as b[g, tk, tn] (or b[g, tn, tk].transpose(0,
// 1)); epilogue loads may also index g.
//
// planMatmul checks that shape (reporting anything else at its location, never
// crashing); the template instantiation is the template-plan pass's (Kernel::gemm).
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"
#include "helion/Config/Config.h"
#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace helion::codegen {

struct MatmulPlan {
  const ir::Stmt* grid = nullptr; ///< the top-level loop
  int tileB = -1;            ///< the batch tile of a batched matmul (bmm), else -1
  int tileM = -1, tileN = -1, tileK = -1;
  int a = -1, b = -1;        ///< tensor params read as A [M, K] and B [K, N]
  bool bTransposed = false;  ///< B read as y[tn, tk].transpose(0, 1): [N, K]
  int accVar = -1;
  /// Grouped GEMM: the group tile g (hl::grid), the tensor of group offsets, and the
  /// group loop's lets (the row loop's bounds, not usable elsewhere). tileG is -1 else.
  int tileG = -1, offsets = -1;
  std::set<int> groupLets;
  /// Epilogue: the grid loop's statements after the K loop (lets and stores).
  std::vector<const ir::Stmt*> epilogue;
  /// The store that tma_store can perform: a single store to out[tm, tn] of a tile
  /// whose BN is a multiple of 64, or -1.
  int tmaStoreParam = -1;

  /// The device library's template parameters (Kernel::gemm, decided by template-plan).
  GemmParams gemm;
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

/// Grouped GEMM (GroupedMatmulPlan.cpp): checks the group, row and column loops
/// `groups`, `rows` and rows' only statement, and sets tileG, offsets, groupLets, tileM
/// and tileN of `plan`; false after reporting why not.
bool planGroupedLoops(const ir::Kernel& kernel, const ir::Stmt& groups, const ir::Stmt& rows,
                      MatmulPlan& plan, DiagnosticEngine& diags);
/// Whether `e` is the group index g (`%g.begin`) of a grouped plan; `ix` a subscript by it.
bool isGroupIndexExpr(const ir::Expr& e, const MatmulPlan& plan);
bool isGroupIndex(const ir::Index& ix, const MatmulPlan& plan);

/// The plan of a kernel whose device code contains `hl::dot`; nullopt after
/// reporting why it is not supported.
std::optional<MatmulPlan> planMatmul(const ir::Kernel& kernel, DiagnosticEngine& diags);

} // namespace helion::codegen
