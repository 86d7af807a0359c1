//===- HoistBlocks.cpp - One block-producing op per statement --------------===//
//
// The CUDA emitter evaluates an elementwise expression tree one element at a
// time, but loads, reductions, scans, creations, dots and random numbers produce
// whole blocks with their own access pattern (hl::rand walks a thread's offsets in
// order, one Philox evaluation per four). This pass gives each of them its own `let`:
//
//   out[tm] = hl::sum(x[tm, hl::all], 1)
// becomes
//   let %_t0 = load %x[%tm, :]
//   let %_t1 = sum(%_t0, dim=1)
//   store %out[%tm] = %_t1
//===----------------------------------------------------------------------===//
#include "helion/IR/Mutator.h"
#include "helion/Transforms/Passes.h"

namespace helion::ir {
namespace {

bool producesBlock(ExprKind k) {
  return k == ExprKind::Load || k == ExprKind::Reduce || k == ExprKind::Full ||
         k == ExprKind::Arange || k == ExprKind::Dot || k == ExprKind::Scan ||
         k == ExprKind::Rand;
}

/// Every operand that produces a block becomes a `let` placed before the statement
/// that uses it; operands are rewritten before their parents, so an inner block gets
/// its `let` (and its temporary's number) first.
class Hoister : public IRMutator {
public:
  explicit Hoister(const Kernel& k) : out_(k) {}

  Kernel run() {
    out_.body = mutateBody(out_.body);
    return out_;
  }

  using IRMutator::mutate;

  /// An operand: hoisted when it produces a block.
  ExprRef mutate(const ExprRef& e) override {
    ExprRef inner = mutateChildren(e);
    return producesBlock(e->kind) ? hoist(inner) : inner;
  }

  void mutate(const StmtRef& s, std::vector<StmtRef>& out) override {
    std::vector<StmtRef> saved = std::move(pending_);
    pending_.clear();
    StmtRef rewritten = rewrite(s);
    for (StmtRef& p : pending_)
      out.push_back(std::move(p));
    pending_ = std::move(saved);
    out.push_back(rewritten);
  }

private:
  StmtRef rewrite(const StmtRef& s) {
    if (s->kind == StmtKind::For) {
      // A jagged loop's bounds (typed: they read device values) may load: `hl::tile(
      // offsets[row], offsets[row + 1])` gets its loads as lets before the loop.
      for (int t : s->tiles) {
        TileVar& tv = out_.tiles.at(t);
        if (tv.begin && tv.begin->type)
          tv.begin = mutate(tv.begin);
        if (tv.end && tv.end->type)
          tv.end = mutate(tv.end);
      }
      return mutateChildren(s);
    }
    auto copy = std::make_shared<Stmt>(*s);
    if (s->kind == StmtKind::Store) { // value, mask, subscripts: the temporaries' order
      copy->value = mutate(s->value);
      if (s->mask)
        copy->mask = mutate(s->mask);
      for (Index& i : copy->indices)
        if (i.value)
          i.value = mutate(i.value);
      return copy;
    }
    // Let, Assign: the root may itself produce a block (it is already a `let`), its
    // operands may not; an assignment of a block assigns a new `let`.
    copy->value = mutateChildren(s->value);
    if (s->kind == StmtKind::Assign && producesBlock(s->value->kind))
      copy->value = hoist(copy->value);
    return copy;
  }

  ExprRef hoist(const ExprRef& e) {
    Var v;
    v.id = static_cast<int>(out_.vars.size());
    v.name = "_t" + std::to_string(temps_++);
    v.loc = e->loc;
    out_.vars.push_back(v);
    auto let = std::make_shared<Stmt>();
    let->kind = StmtKind::Let;
    let->loc = e->loc;
    let->var = v.id;
    let->value = e;
    pending_.push_back(let);
    auto ref = std::make_shared<Expr>(*makeVarRef(v.id, e->loc));
    ref->type = e->type;
    return ref;
  }

  Kernel out_;
  std::vector<StmtRef> pending_;
  int temps_ = 0;
};

} // namespace

Kernel hoistBlocks(const Kernel& kernel, PassContext&) { return Hoister(kernel).run(); }

} // namespace helion::ir
