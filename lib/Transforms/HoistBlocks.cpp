//===- HoistBlocks.cpp - One block-producing op per statement --------------===//
//
// The CUDA emitter evaluates an elementwise expression tree one element at a
// time, but loads, reductions, creations and dots produce whole blocks with
// their own access pattern. This pass gives each of them its own `let`:
//
//   out[tm] = hl::sum(x[tm, hl::all], 1)
// becomes
//   let %_t0 = load %x[%tm, :]
//   let %_t1 = sum(%_t0, dim=1)
//   store %out[%tm] = %_t1
//===----------------------------------------------------------------------===//
#include "helion/Transforms/Passes.h"

namespace helion::ir {
namespace {

bool producesBlock(ExprKind k) {
  return k == ExprKind::Load || k == ExprKind::Reduce || k == ExprKind::Full ||
         k == ExprKind::Arange || k == ExprKind::Dot;
}

class Hoister {
public:
  explicit Hoister(const Kernel& k) : out_(k) {}

  Kernel run() {
    out_.body = block(out_.body);
    return out_;
  }

private:
  std::vector<StmtRef> block(const std::vector<StmtRef>& body) {
    std::vector<StmtRef> saved = std::move(pending_);
    pending_.clear();
    std::vector<StmtRef> out;
    for (const StmtRef& s : body) {
      auto copy = std::make_shared<Stmt>(*s);
      switch (s->kind) {
      case StmtKind::Let:
      case StmtKind::Assign:
        copy->value = rootOperands(s->value);
        if (s->kind == StmtKind::Assign && producesBlock(s->value->kind))
          copy->value = hoist(copy->value);
        break;
      case StmtKind::Store:
        copy->value = operand(s->value);
        if (s->mask)
          copy->mask = operand(s->mask);
        for (Index& i : copy->indices)
          if (i.value)
            i.value = operand(i.value);
        break;
      case StmtKind::For:
        copy->body = block(s->body);
        break;
      }
      for (StmtRef& p : pending_)
        out.push_back(std::move(p));
      pending_.clear();
      out.push_back(copy);
    }
    pending_ = std::move(saved);
    return out;
  }

  /// The root may itself produce a block (it is already a `let`); its operands may not.
  ExprRef rootOperands(const ExprRef& e) {
    auto copy = std::make_shared<Expr>(*e);
    for (ExprRef& op : copy->operands)
      op = operand(op);
    for (Index& i : copy->indices)
      if (i.value)
        i.value = operand(i.value);
    return copy;
  }

  ExprRef operand(const ExprRef& e) {
    ExprRef inner = rootOperands(e);
    return producesBlock(e->kind) ? hoist(inner) : inner;
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

const std::vector<Pass>& analysisPipeline() {
  static const std::vector<Pass> passes = {
      {"infer-types", "dims and element types of every value, reduction axes", inferTypes},
      {"hoist-blocks", "one load, reduction, creation or dot per statement", hoistBlocks},
  };
  return passes;
}

} // namespace helion::ir
