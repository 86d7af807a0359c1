//===- AttentionRecognizer.h - The flash-attention recognizer ----*- C++ -*-===//
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
//
// The Planner below checks it for the recognize-templates pass and records it as
// Kernel::attention (helion/IR/TemplateMatch.h): RecognizeAttention.cpp (the grid
// loop, the prologue, the accumulators' initial values, the epilogue) and
// RecognizeAttentionKeyLoop.cpp (the key loop evaluated symbolically, the score and
// its causal mask). Private to lib/Transforms.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/TemplateMatch.h"
#include "helion/Support/Diagnostics.h"

#include "helion/IR/Mutator.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace helion::ir {

/// The flash attention of `kernel`; nullopt after reporting why not.
std::optional<AttentionMatch> recognizeAttention(const Kernel& kernel, DiagnosticEngine& diags);

namespace attention {

bool isConst(const ExprRef& e, double v);
bool isVar(const ExprRef& e, int var);
/// `x[:, :, newaxis]` of a 2-D value: returns x, or null.
ExprRef unsqueezed(const ExprRef& e);
/// The operands of a commutative binary `op` as (x, y) with pred(x) true, or false.
bool commuted(const ExprRef& e, BinaryOp op, const std::function<bool(const ExprRef&)>& pred,
              ExprRef& x, ExprRef& y);
const Expr* firstBatchedDot(const std::vector<StmtRef>& body);

class Planner {
public:
  Planner(const Kernel& k, DiagnosticEngine& d) : k_(k), d_(d) {}

  std::optional<AttentionMatch> run();

private:
  const Kernel& k_;
  DiagnosticEngine& d_;
  AttentionMatch p_;
  std::map<int, ExprRef> pre_;            // grid-body lets before the key loop
  std::map<int, const Stmt*> preStmt_;
  std::map<int, ExprRef> env_;            // symbolic values inside the key loop
  std::map<int, const Stmt*> lastAssign_; // carried variable -> its last assignment
  std::set<int> epilogueVars_;            // lets after the key loop
  std::set<int> outputVars_;              // ... of those, the ones computed from acc

  std::nullopt_t fail(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return std::nullopt;
  }
  bool error(const SourceLoc& loc, const std::string& msg) {
    d_.error(loc, msg);
    return false;
  }

  bool isTile(const Index& ix, int tile) const {
    return ix.kind == Index::Kind::Tile && ix.tile == tile;
  }

  /// `t[tb, rows, :]` of a 3-D tensor: its param, or -1.
  int load3(const ExprRef& e, int rows) const {
    if (e->kind != ExprKind::Load || e->gatherAll || e->indices.size() != 3 ||
        !isTile(e->indices[0], p_.tileB) || !isTile(e->indices[1], rows) ||
        e->indices[2].kind != Index::Kind::All)
      return -1;
    return e->param;
  }

  bool prologueStmt(const Stmt& s);

  /// Substitutes the loop's current symbolic values (and the prologue's q tile).
  class Substitute : public IRMutator {
  public:
    explicit Substitute(const Planner& p) : p_(p) {}
    using IRMutator::mutate;
    ExprRef mutate(const ExprRef& e) override {
      if (e->kind != ExprKind::Var)
        return mutateChildren(e);
      if (p_.env_.count(e->var))
        return p_.env_.at(e->var);
      if (p_.pre_.count(e->var) && p_.pre_.at(e->var)->kind == ExprKind::Load)
        return p_.pre_.at(e->var);
      return e;
    }

  private:
    const Planner& p_;
  };
  ExprRef subst(const ExprRef& e) const { return Substitute(*this).mutate(e); }

  bool keyLoopBody(const Stmt& loop);

  /// S: pointwise ops, scalars and exactly one dot(q[tb, tm, :], k[tb, tn, :]^T).
  bool scoreExpr(const ExprRef& e);

  /// `t.index()` of tile `tile` under views that only add axes: true.
  static bool isIndexOf(const ExprRef& e, int tile);

  /// Whether S is where(tm.index() >= tn.index(), S', -inf) (or tn <= tm), the causal
  /// mask: every key past its query row scores -inf, so key blocks past the diagonal
  /// need not be read.
  bool causalMask(const ExprRef& e) const;

  /// f when `e` (S without its mask) is dot * f or f * dot with f free of the dot and
  /// the tile indices, else null.
  ExprRef linearFactor(const ExprRef& e) const;

  bool checkInits();

  bool epilogueValue(const ExprRef& e);

  /// Whether `e` reads acc (directly or through an epilogue let that does).
  bool usesOutput(const Expr& e) const;

  bool epilogueStmt(const Stmt& s);
};

} // namespace attention
} // namespace helion::ir
