//===- AccumulatePartials.cpp - Sums over a tile loop, reduced once ---------===//
//
// A loop that adds the sum of each tile to an accumulator reduces across threads once
// per iteration: a shared-memory round trip and a barrier for every tile of a jagged
// row or a looped reduction. The sum of sums is the sum of the elementwise partial
// sums, so this pass keeps one partial sum per element of the tile, in registers, and
// reduces once after the loop:
//
//   let %acc = full([td], 0.0, f32)              let %acc = full([td], 0.0, f32)
//   for %tk in tile(%s, %e) {                     let %_p = full([tk, td], 0.0, f32)
//     let %x = load %v[%tk, %td]          ==>     for %tk in tile(%s, %e) {
//     let %r = sum(cast<f32>(%x), dim=0)            let %x = load %v[%tk, %td]
//     %acc = add(%acc, %r)                          %_p = add(%_p, cast<f32>(%x))
//   }                                             }
//                                                 let %r = sum(%_p, dim=0)
//                                                 %acc = add(%acc, %r)
//
// The partial sum keeps the loop's tile dim after the loop; its elements past the end
// of the last tile were never added to, so they hold zero. That is what makes the
// final sum correct without bounds, and why the summand must be zero wherever the
// tile is out of bounds: masked loads are (they read zero), and so are casts, negations,
// sums and products of such values. Anything else (exp(x) is one past the end) keeps
// the per-tile reduction.
//
// Applies to a single-tile loop whose body holds `let r = sum(X, d)` (d: the loop's
// tile, X of tile and broadcast dims only, the sum f32 or f64: the partial sums keep
// that precision) and `acc = acc + r`, where r has no other use and acc no other use
// or assignment in the loop.
//===----------------------------------------------------------------------===//
#include "helion/IR/Mutator.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"

#include <map>

namespace helion::ir {
namespace {

/// Uses of variable `v` in `body` (loop bodies included).
int usesOf(const std::vector<StmtRef>& body, int v) {
  int n = 0;
  walkExprs(body, [&](const Expr& e) { n += e.kind == ExprKind::Var && e.var == v; });
  return n;
}

/// Assignments (not the let) of variable `v` in `body`.
int assignsOf(const std::vector<StmtRef>& body, int v) {
  int n = 0;
  walkStmts(body, [&](const Stmt& s) { n += s.kind == StmtKind::Assign && s.var == v; });
  return n;
}

class Partials : public IRMutator {
public:
  explicit Partials(const Kernel& k) : out_(k) {}

  Kernel run() {
    out_.body = mutateBody(out_.body);
    return out_;
  }

  using IRMutator::mutate;

  void mutate(const StmtRef& s, std::vector<StmtRef>& out) override {
    if (s->kind != StmtKind::For) {
      IRMutator::mutate(s, out);
      return;
    }
    ++depth_;
    StmtRef loop = IRMutator::mutateChildren(s); // inner loops first
    --depth_;
    // Top-level loops are the grid: their tiles are programs, not iterations.
    std::vector<StmtRef> after;
    if (depth_ > 0 && loop->tiles.size() == 1)
      while (rewriteOne(loop, out, after)) {
      }
    out.push_back(loop);
    out.insert(out.end(), after.begin(), after.end());
  }

private:
  /// Whether `e` is zero wherever tile `t` is past its end (see the file comment);
  /// `lets`: the loop body's lets seen so far.
  bool zeroPadded(const Expr& e, int t, const std::map<int, const Stmt*>& lets) const {
    switch (e.kind) {
    case ExprKind::Load: {
      if (e.gatherAll)
        return false;
      for (const Index& i : e.indices)
        if (i.kind == Index::Kind::Tile && i.tile == t)
          return true;
      return false;
    }
    case ExprKind::Var: {
      auto it = lets.find(e.var);
      return it != lets.end() && zeroPadded(*it->second->value, t, lets);
    }
    case ExprKind::Cast: return zeroPadded(*e.operands[0], t, lets);
    case ExprKind::Unary: return e.unary == UnaryOp::Neg && zeroPadded(*e.operands[0], t, lets);
    case ExprKind::Binary:
      return (e.binary == BinaryOp::Add || e.binary == BinaryOp::Sub ||
              e.binary == BinaryOp::Mul) &&
             zeroPadded(*e.operands[0], t, lets) && zeroPadded(*e.operands[1], t, lets);
    default: return false;
    }
  }

  /// `acc = acc + r` or `acc = r + acc`: r's var, or -1.
  static int addedVar(const Stmt& s) {
    const Expr& v = *s.value;
    if (s.kind != StmtKind::Assign || v.kind != ExprKind::Binary || v.binary != BinaryOp::Add)
      return -1;
    const Expr& a = *v.operands[0];
    const Expr& b = *v.operands[1];
    if (a.kind == ExprKind::Var && a.var == s.var && b.kind == ExprKind::Var)
      return b.var;
    if (b.kind == ExprKind::Var && b.var == s.var && a.kind == ExprKind::Var)
      return a.var;
    return -1;
  }

  /// Rewrites one matching sum of `loop`: the partial's let goes to `before`, the final
  /// sum and add to `after`. False when none matches.
  bool rewriteOne(StmtRef& loop, std::vector<StmtRef>& before, std::vector<StmtRef>& after) {
    const int t = loop->tiles[0];
    const std::vector<StmtRef>& body = loop->body;
    std::map<int, const Stmt*> lets;
    for (size_t i = 0; i < body.size(); ++i) {
      const Stmt& let = *body[i];
      if (let.kind != StmtKind::Let)
        continue;
      if (!assignsOf(body, let.var))
        lets[let.var] = &let;
      const Expr& red = *let.value;
      if (red.kind != ExprKind::Reduce || red.reduce != ReduceOp::Sum || red.keepdim ||
          !red.type || !red.type->elem.isConcrete() ||
          (red.type->elem.scalar() != ScalarType::F32 && red.type->elem.scalar() != ScalarType::F64))
        continue;
      const Expr& x = *red.operands[0];
      if (!x.type || red.dim >= x.type->rank() || !(x.type->dims[red.dim] == Dim::ofTile(t)))
        continue;
      bool tileDims = true;
      for (const Dim& d : x.type->dims)
        tileDims &= d.kind != Dim::Kind::Full;
      if (!tileDims || !zeroPadded(x, t, lets) || usesOf(body, let.var) != 1)
        continue;
      for (size_t j = i + 1; j < body.size(); ++j) {
        if (addedVar(*body[j]) != let.var)
          continue;
        const int acc = body[j]->var;
        if (usesOf(body, acc) != 1 || assignsOf(body, acc) != 1)
          break;
        rewrite(loop, i, j, before, after);
        return true;
      }
    }
    return false;
  }

  void rewrite(StmtRef& loop, size_t i, size_t j, std::vector<StmtRef>& before,
               std::vector<StmtRef>& after) {
    const Stmt& let = *loop->body[i];
    const Expr& red = *let.value;
    const ExprRef& x = red.operands[0];
    const BlockType ptype{red.type->elem, x->type->dims};
    const int p = static_cast<int>(out_.vars.size());
    out_.vars.push_back({p, "_p", let.loc});

    auto zero = withType(makeConst(0.0, false, let.loc), BlockType{red.type->elem, {}});
    auto full = std::make_shared<Expr>(*zero);
    full->kind = ExprKind::Full;
    full->type = ptype;
    full->operands = {zero};
    full->shape = ptype.dims;
    full->castTo = red.type->elem.scalar();
    auto init = std::make_shared<Stmt>(let);
    init->var = p;
    init->value = full;
    before.push_back(init);

    auto step = std::make_shared<Stmt>(let);
    step->kind = StmtKind::Assign;
    step->var = p;
    step->value = withType(makeBinary(BinaryOp::Add, withType(makeVarRef(p, let.loc), ptype), x,
                                      let.loc),
                           ptype);
    auto fin = std::make_shared<Stmt>(let); // let r = sum(%_p, d), after the loop
    auto finalSum = withOperands(let.value, {withType(makeVarRef(p, let.loc), ptype)});
    auto padded = std::make_shared<Expr>(*finalSum);
    padded->zeroPadded = true; // past the last tile, the partial sums were never added to
    fin->value = padded;

    auto body = loop->body;
    StmtRef addStmt = body[j];
    body.erase(body.begin() + static_cast<long>(j));
    body[i] = step;
    auto rebuilt = std::make_shared<Stmt>(*loop);
    rebuilt->body = std::move(body);
    loop = rebuilt;
    after.push_back(fin);
    after.push_back(addStmt);
  }

  Kernel out_;
  int depth_ = 0;
};

} // namespace

Kernel accumulatePartials(const Kernel& kernel, PassContext&) { return Partials(kernel).run(); }

} // namespace helion::ir
