//===- MatmulRecognizer.h - The tensor-core matmul recognizer --*- C++ -*-===//
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
// or grouped (grouped GEMM, RecognizeGroupedMatmul.cpp): a grid loop over groups g whose
// row loop tm runs from offsets[g] to offsets[g + 1] and holds the column loop tn,
// whose body is the matmul's with B read as b[g, tk, tn] (or b[g, tn, tk].transpose(0,
// 1)); epilogue loads may also index g.
//
// The recognize-templates pass checks that shape with the Planner below
// (RecognizeMatmul.cpp), reporting anything else at its location, never crashing, and
// records it as Kernel::matmul; the template instantiation is the template-plan pass's
// (Kernel::gemm). Private to lib/Transforms.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/TemplateMatch.h"
#include "helion/Support/Diagnostics.h"

#include "helion/IR/Visitor.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace helion::ir {

/// Grouped GEMM (RecognizeGroupedMatmul.cpp): checks the group, row and column loops
/// `groups`, `rows` and rows' only statement, and sets tileG, offsets, groupLets, tileM
/// and tileN of `match`; false after reporting why not.
bool planGroupedLoops(const Kernel& kernel, const Stmt& groups, const Stmt& rows,
                      MatmulMatch& match, DiagnosticEngine& diags);
/// Whether `e` is the group index g (`%g.begin`) of a grouped match; `ix` a subscript by it.
bool isGroupIndexExpr(const Expr& e, const MatmulMatch& match);
bool isGroupIndex(const Index& ix, const MatmulMatch& match);

/// The matmul, bmm or grouped GEMM of `kernel`; nullopt after reporting why not.
std::optional<MatmulMatch> recognizeMatmul(const Kernel& kernel, DiagnosticEngine& diags);

namespace matmul {

class Planner {
public:
  Planner(const Kernel& k, DiagnosticEngine& d) : k_(k), d_(d) {}

  std::optional<MatmulMatch> run();

private:
  const Kernel& k_;
  DiagnosticEngine& d_;
  MatmulMatch p_;
  std::map<int, ExprRef> lets_; // K-loop lets, by var

  bool batched() const { return p_.tileB >= 0; }
  bool grouped() const { return p_.tileG >= 0; }

  /// The first dot whose result is not 2-D (batched: 3-D), or null.
  const Expr* wrongRankDot() const {
    const size_t rank = batched() ? 3 : 2;
    return findExpr(k_.body, [rank](const Expr& e) {
      return e.kind == ExprKind::Dot && e.type && e.type->dims.size() != rank;
    });
  }

  std::nullopt_t fail(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return std::nullopt;
  }

  ExprRef resolve(const ExprRef& e) const {
    if (e->kind == ExprKind::Var && lets_.count(e->var))
      return resolve(lets_.at(e->var));
    return e;
  }

  bool isTile(const Index& ix, int tile) const {
    return ix.kind == Index::Kind::Tile && ix.tile == tile;
  }

  /// A copy of `e` with the K loop's lets substituted, in subscripts too (a computed A's
  /// F, bounded by kMaxPrologueNodes; a K-block scale's factors).
  ExprRef substituted(const Expr& e) const;

  /// `x[tm, tk]` (A) or F(x[tm, tk]) (an A prologue), `y[tk, tn]` (B) or `y[tn, tk].transpose(0, 1)` (B as [N, K]);
  /// batched: `x[tb, tm, tk]`, `y[tb, tk, tn]`, `y[tb, tn, tk].transpose(1, 2)`.
  bool operand(const ExprRef& raw, bool isA);

  bool kLoop(const Stmt& loop);

  /// The dot of an addend `hl::dot(a, b) * S` scaled per K block (ScaledDot.h), after
  /// recording S's row and column factors; null when it is not that form.
  ExprRef scaledDot(const Expr& addend);

  bool epilogueExpr(const Expr& e);

  /// out[tm, tn], or batched out[tb, tm, tn].
  bool storeTarget(const Stmt& s) const;

  bool epilogueStmt(const Stmt& s);
};

} // namespace matmul
} // namespace helion::ir
