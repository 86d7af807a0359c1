//===- MatmulPlanner.h - The tensor-core matmul recognizer -----*- C++ -*-===//
//
// The Planner behind planMatmul (MatmulPlan.h): the pattern (the grid loop, the K
// loop, its operands and the epilogue) in MatmulPlan.cpp. Private to lib/CodeGen.
//===----------------------------------------------------------------------===//
#pragma once

#include "MatmulPlan.h"

#include "helion/IR/Visitor.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace helion::codegen::matmul {

using namespace ir;

class Planner {
public:
  Planner(const Kernel& k, DiagnosticEngine& d) : k_(k), d_(d) {}

  std::optional<MatmulPlan> run();

private:
  const Kernel& k_;
  DiagnosticEngine& d_;
  MatmulPlan p_;
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

  /// Whether transpose dims (d1, d2) swap the last two of `rank` dims.
  static bool swapsLastTwo(int d1, int d2, int rank) {
    auto norm = [rank](int d) { return d < 0 ? d + rank : d; };
    return std::min(norm(d1), norm(d2)) == rank - 2 && std::max(norm(d1), norm(d2)) == rank - 1;
  }

  /// `x[tm, tk]` (A), `y[tk, tn]` (B) or `y[tn, tk].transpose(0, 1)` (B as [N, K]);
  /// batched: `x[tb, tm, tk]`, `y[tb, tk, tn]`, `y[tb, tn, tk].transpose(1, 2)`.
  bool operand(const ExprRef& raw, bool isA);

  bool kLoop(const Stmt& loop);

  bool epilogueExpr(const Expr& e);

  /// out[tm, tn], or batched out[tb, tm, tn].
  bool storeTarget(const Stmt& s) const;

  bool epilogueStmt(const Stmt& s);
};

} // namespace helion::codegen::matmul
