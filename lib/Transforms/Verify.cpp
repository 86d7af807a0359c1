//===- Verify.cpp - Structural invariants of the IR ------------------------===//
//
// Run after the frontend and after every pass. A violation is a bug in helionc, not
// in the kernel, and is reported as an internal compiler error at the node's source
// location, naming the stage that produced it:
//   - every node has the operands its kind carries (operandArity): no pass drops
//     one the language gave (the mask of hl::load, the accumulator of hl::dot);
//   - parameter, tile, variable and block-size ids are in range, and tensors are used
//     as tensors, scalars as scalars;
//   - subscripts carry a value exactly when their kind needs one; only hl::load has a
//     mask operand, only hl::store a mask statement field;
//   - variables are defined (by a `let` in this or an enclosing body) before use;
//   - after infer-types: every expression is typed, and the masks of hl::load and
//     hl::store broadcast into the shape they guard;
//   - decisions, once a pass made them: the kernel-level ones (block sizes, chunks,
//     grid mappings, the thread layout, the launch, a template's parameters) as
//     VerifyDecisions.cpp says; a grid mapping sits on a top-level loop only; an unroll
//     factor sits on a nested loop only; a hint on a load that is neither a gather nor
//     masked; hoisted and staged lets are loads directly in a persistent grid loop,
//     staged ones in a loop of 2 stages or more; an online-softmax max let names a
//     later fused sum let of its body, and each fused let is named by one.
//===----------------------------------------------------------------------===//
#include "helion/Transforms/Passes.h"

#include "VerifyDecisions.h"

#include <algorithm>
#include <set>
#include <string>

namespace helion::ir {
namespace {

class Verifier {
public:
  Verifier(const Kernel& k, DiagnosticEngine& diags, std::string stage, bool typed)
      : k_(k), diags_(diags), stage_(std::move(stage)), typed_(typed) {}

  bool run() {
    for (size_t i = 0; i < k_.tiles.size(); ++i) {
      const TileVar& t = k_.tiles[i];
      if (t.id != static_cast<int>(i))
        fail(t.loc, "tile '" + t.name + "' has id " + std::to_string(t.id) + " at position " +
                        std::to_string(i));
      if (!t.isGrid && (t.blockSize < 0 || t.blockSize >= static_cast<int>(k_.blockSizes.size())))
        fail(t.loc, "tile '" + t.name + "' names block size " + std::to_string(t.blockSize));
      if (t.flatOfParam >= 0)
        tensorParam(t.flatOfParam, t.loc);
    }
    verifyKernelDecisions(k_, [this](const SourceLoc& loc, const std::string& what) {
      fail(loc, what);
    });
    for (const StmtRef& s : k_.body) {
      if (s->kind != StmtKind::For)
        fail(s->loc, "a top-level statement that is not a tile loop");
      else if (s->grid)
        verifyGridMapping(k_, *s, *s->grid, [this](const SourceLoc& loc, const std::string& what) {
          fail(loc, what);
        });
    }
    std::set<int> defined;
    body(k_.body, defined);
    return errors_ == 0;
  }

private:
  void fail(const SourceLoc& loc, const std::string& what) {
    ++errors_;
    if (errors_ > 20)
      return;
    diags_.error(loc, "internal compiler error: invalid IR after " + stage_ + ": " + what);
  }

  void tensorParam(int p, const SourceLoc& loc) {
    if (p < 0 || p >= static_cast<int>(k_.params.size()))
      fail(loc, "parameter " + std::to_string(p) + " out of range");
    else if (k_.params[p].kind != Param::Kind::Tensor)
      fail(loc, "scalar parameter '" + k_.params[p].name + "' used as a tensor");
  }

  /// An online pair: a max let whose partner is a later fused sum let of the same body
  /// (and a fused let some earlier max of the body names).
  void checkOnlinePair(const Stmt& s, const std::vector<StmtRef>& stmts) {
    auto isReduce = [](const Stmt& t, ReduceOp op) {
      return t.kind == StmtKind::Let && t.value && t.value->kind == ExprKind::Reduce &&
             t.value->reduce == op;
    };
    auto at = std::find_if(stmts.begin(), stmts.end(), [&](const StmtRef& t) { return t.get() == &s; });
    bool ok = at != stmts.end();
    if (ok && s.onlineSum >= 0) {
      auto p = std::find_if(at + 1, stmts.end(), [&](const StmtRef& t) {
        return t->kind == StmtKind::Let && t->var == s.onlineSum;
      });
      ok = isReduce(s, ReduceOp::Max) && p != stmts.end() && (*p)->fused &&
           isReduce(**p, ReduceOp::Sum);
    }
    if (ok && s.fused)
      ok = isReduce(s, ReduceOp::Sum) && std::any_of(stmts.begin(), at, [&](const StmtRef& t) {
             return t->onlineSum == s.var;
           });
    if (!ok)
      fail(s.loc, "an online softmax pair that is not a max let and a later fused sum let of "
                  "one body");
  }

  /// A hoisted or staged let: a load directly in a persistent grid loop (hoisted: the
  /// first), staged in a loop with its stages.
  void checkMovedLoad(const Stmt& s, const std::vector<StmtRef>& stmts) {
    const Stmt* loop = nullptr;
    for (const StmtRef& g : k_.body)
      loop = &g->body == &stmts ? g.get() : loop;
    const bool persistent = loop && loop->grid &&
                            (loop->grid->pid == GridMapping::Pid::PersistentBlocked ||
                             loop->grid->pid == GridMapping::Pid::PersistentInterleaved);
    if (s.kind != StmtKind::Let || s.value->kind != ExprKind::Load || !persistent ||
        (s.hoisted && (s.staged || loop != k_.body.front().get())) ||
        (s.staged && loop->stages < 2))
      fail(s.loc, std::string(s.hoisted ? "a hoisted" : "a staged") +
                      " statement that is not a load's let directly in a persistent grid loop" +
                      (s.staged ? " with stages" : ""));
  }

  void tile(int t, const SourceLoc& loc) {
    if (t < 0 || t >= static_cast<int>(k_.tiles.size()))
      fail(loc, "tile " + std::to_string(t) + " out of range");
  }

  /// `target`: the shape the mask guards; the mask's dims must broadcast into it.
  void maskFits(const Expr& mask, const std::vector<Dim>& target, const SourceLoc& loc) {
    if (!mask.type)
      return;
    const std::vector<Dim>& m = mask.type->dims;
    if (m.size() > target.size()) {
      fail(loc, "a mask of rank " + std::to_string(m.size()) + " guards a block of rank " +
                    std::to_string(target.size()));
      return;
    }
    for (size_t i = 0; i < m.size(); ++i) {
      const Dim& a = m[m.size() - 1 - i];
      const Dim& b = target[target.size() - 1 - i];
      if (a.kind != Dim::Kind::One && !(a == b) &&
          !(a.kind == Dim::Kind::Full && b.kind == Dim::Kind::Full))
        fail(loc, "a mask dim does not broadcast into the block it guards");
    }
  }

  void indices(const std::vector<Index>& ix, const std::set<int>& defined, const SourceLoc& loc) {
    for (const Index& i : ix) {
      bool needsValue = i.kind == Index::Kind::Scalar || i.kind == Index::Kind::Gather;
      if (needsValue != static_cast<bool>(i.value))
        fail(loc, needsValue ? "a scalar or gather subscript without its value"
                             : "a subscript with a value its kind does not use");
      if (i.kind == Index::Kind::Tile || i.kind == Index::Kind::Flat)
        tile(i.tile, loc);
      if (i.value)
        expr(*i.value, defined);
    }
  }

  void expr(const Expr& e, const std::set<int>& defined) {
    auto [lo, hi] = operandArity(e.kind);
    if (e.operands.size() < lo || e.operands.size() > hi)
      fail(e.loc, "a node with " + std::to_string(e.operands.size()) + " operands (its kind has " +
                      std::to_string(lo) + (lo == hi ? "" : " to " + std::to_string(hi)) + ")");
    for (const ExprRef& op : e.operands)
      if (!op)
        fail(e.loc, "a null operand");
    if (typed_ && !e.type)
      fail(e.loc, "an untyped expression");
    switch (e.kind) {
    case ExprKind::Param:
      if (e.param < 0 || e.param >= static_cast<int>(k_.params.size()))
        fail(e.loc, "parameter " + std::to_string(e.param) + " out of range");
      else if (k_.params[e.param].kind != Param::Kind::Scalar)
        fail(e.loc, "tensor parameter '" + k_.params[e.param].name + "' used as a scalar");
      break;
    case ExprKind::TensorSize: tensorParam(e.param, e.loc); break;
    case ExprKind::Var:
      if (e.var < 0 || e.var >= static_cast<int>(k_.vars.size()))
        fail(e.loc, "variable " + std::to_string(e.var) + " out of range");
      else if (!defined.count(e.var))
        fail(e.loc, "variable '" + k_.vars[e.var].name + "' used before its definition");
      break;
    case ExprKind::TileAttr:
    case ExprKind::TileIndex: tile(e.tile, e.loc); break;
    case ExprKind::Load:
      tensorParam(e.param, e.loc);
      if (loadMask(e) && !e.gatherAll)
        fail(e.loc, "a masked load that is not hl::load");
      if (e.eviction != Eviction::None && (e.gatherAll || e.evictionEntry < 0))
        fail(e.loc, "an eviction hint on a gather or masked load, or from no entry");
      if (typed_ && e.type && loadMask(e))
        maskFits(*loadMask(e), e.type->dims, e.loc);
      break;
    default:
      if (e.eviction != Eviction::None)
        fail(e.loc, "an eviction hint on a node that is not a load");
      break;
    }
    indices(e.indices, defined, e.loc);
    for (const ExprRef& op : e.operands)
      if (op)
        expr(*op, defined);
    for (const ExprRef& s : e.shapeSizes)
      if (s)
        expr(*s, defined);
  }

  void body(const std::vector<StmtRef>& stmts, std::set<int>& defined) {
    for (const StmtRef& sp : stmts) {
      const Stmt& s = *sp;
      switch (s.kind) {
      case StmtKind::Let:
      case StmtKind::Assign:
        if (!s.value) {
          fail(s.loc, "a let or assignment without a value");
          break;
        }
        expr(*s.value, defined);
        if (s.hoisted || s.staged)
          checkMovedLoad(s, stmts);
        if (s.onlineSum >= 0 || s.fused)
          checkOnlinePair(s, stmts);
        if (s.var < 0 || s.var >= static_cast<int>(k_.vars.size()))
          fail(s.loc, "variable " + std::to_string(s.var) + " out of range");
        else if (s.kind == StmtKind::Assign && !defined.count(s.var))
          fail(s.loc, "assignment to '" + k_.vars[s.var].name + "' before its definition");
        defined.insert(s.var);
        break;
      case StmtKind::Store:
        tensorParam(s.param, s.loc);
        if (!s.value)
          fail(s.loc, "a store without a value");
        else
          expr(*s.value, defined);
        indices(s.indices, defined, s.loc);
        if (s.mask) {
          if (!s.gatherAll)
            fail(s.loc, "a masked store that is not hl::store");
          expr(*s.mask, defined);
          if (typed_)
            maskFits(*s.mask, s.targetDims, s.loc);
        }
        break;
      case StmtKind::For: {
        if (s.tiles.empty())
          fail(s.loc, "a tile loop without tiles");
        if (s.grid && &stmts != &k_.body)
          fail(s.loc, "a grid mapping on a nested tile loop");
        if (s.unroll < -1 || (s.unroll >= 0 && &stmts == &k_.body))
          fail(s.loc, "an unroll factor of " + std::to_string(s.unroll) +
                          (&stmts == &k_.body ? " on a grid loop" : ""));
        if (s.stages && (s.stages < 2 || &stmts != &k_.body))
          fail(s.loc, std::to_string(s.stages) + " stages of staged loads on a nested loop");
        for (int t : s.tiles) {
          tile(t, s.loc);
          if (t >= 0 && t < static_cast<int>(k_.tiles.size())) {
            const TileVar& tv = k_.tiles[t];
            if (!tv.begin || !tv.end)
              fail(tv.loc, "tile '" + tv.name + "' without bounds");
            else { // loop bounds are host-side scalars: infer-types leaves them untyped
              bool typed = typed_;
              typed_ = false;
              expr(*tv.begin, defined);
              expr(*tv.end, defined);
              typed_ = typed;
            }
          }
        }
        std::set<int> inner = defined; // lets inside the loop end with it
        body(s.body, inner);
        break;
      }
      }
    }
  }

  const Kernel& k_;
  DiagnosticEngine& diags_;
  std::string stage_;
  bool typed_;
  int errors_ = 0;
};

} // namespace

bool verifyKernel(const Kernel& kernel, DiagnosticEngine& diags, const std::string& stage,
                  bool typed) {
  return Verifier(kernel, diags, stage, typed).run();
}

} // namespace helion::ir
