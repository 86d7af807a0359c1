//===- OnlineSoftmax.cpp - amax and sum(exp(x - max)) in one pass ----------===//
//
// Over a looped reduction axis (reduction_loops: chunks), `let m = amax(X, d)` and a
// later `let s = sum(exp(X - m), d)` in the same body would read X twice, once per
// reduction. This pass pairs them (Stmt::onlineSum on the max, Stmt::fused on the
// sum): the emitter computes both in one pass over the chunks, with a running maximum
// that rescales the running sum (EmitReduce.cpp), so X is read once.
//
//   let online(%s.3) %m.2 : f32[tm] = amax(%x.1, dim=1)      // a0(x.size(1)) looped 1024
//   let fused %s.3 : f32[tm] = sum(exp(sub(%x.1, %m.2[:, newaxis])), dim=1)
//
// The pair must agree in element type and dim; the sum's operand may reach the
// exponential through earlier lets over looped axes (which the emitter recomputes in
// each chunk loop), those between the max and the sum included, and see X and m
// through views. The emitter computes the sum from X and the running maximum; the
// lets stay for their other uses (softmax's store recomputes exp(x - m) per chunk). Kernels a template prints have no
// looped axes of their own: the pass leaves them alone.
//===----------------------------------------------------------------------===//
#include "helion/IR/DotShape.h"
#include "helion/Transforms/Passes.h"

#include <map>

namespace helion::ir {
namespace {

class Pairing {
public:
  explicit Pairing(const Kernel& k) : k_(k) {}

  /// `body` with its pairs marked (new nodes only where a flag changes).
  std::vector<StmtRef> run(const std::vector<StmtRef>& body) {
    std::vector<StmtRef> out = body;
    std::map<int, int> partnerOf; // max let's var -> sum let's var
    std::map<int, bool> fused;
    for (size_t i = 0; i < out.size(); ++i) {
      const Stmt& s = *out[i];
      if (s.kind == StmtKind::For) {
        auto loop = std::make_shared<Stmt>(s);
        loop->body = run(s.body);
        out[i] = loop;
        continue;
      }
      if (s.kind != StmtKind::Let || !s.value)
        continue;
      // The lets the emitter defers (recomputes in each chunk loop): over a looped axis.
      if (overLoopedAxis(*s.value))
        deferred_[s.var] = s.value.get();
      if (fused.count(s.var))
        continue; // already the sum of an earlier max
      if (const Stmt* partner = partnerOfMax(s, out, i)) {
        partnerOf[s.var] = partner->var;
        fused[partner->var] = true;
      }
    }
    for (StmtRef& s : out) {
      if (s->kind != StmtKind::Let)
        continue;
      const int partner = partnerOf.count(s->var) ? partnerOf.at(s->var) : -1;
      const bool isFused = fused.count(s->var) > 0;
      if (partner != s->onlineSum || isFused != s->fused) {
        auto let = std::make_shared<Stmt>(*s);
        let->onlineSum = partner;
        let->fused = isFused;
        s = std::move(let);
      }
    }
    return out;
  }

private:
  const Kernel& k_;
  std::map<int, const Expr*> deferred_; ///< lets over a looped axis seen so far, by var

  bool looped(const Dim& d) const {
    return d.kind == Dim::Kind::Full && d.axis >= 0 &&
           d.axis < static_cast<int>(k_.axes.size()) && k_.axes[d.axis].looped();
  }

  bool overLoopedAxis(const Expr& e) const {
    if (!e.type || e.kind == ExprKind::Scan)
      return false;
    for (const Dim& d : e.type->dims)
      if (looped(d))
        return true;
    return false;
  }

  static const Expr* resolve(const Expr* e, const std::map<int, const Expr*>& lets) {
    while (e->kind == ExprKind::Var) {
      auto it = lets.find(e->var);
      if (it == lets.end())
        break;
      e = it->second;
    }
    return e;
  }

  static bool isVar(const Expr& e, int v) {
    const Expr* p = &e;
    if (p->kind == ExprKind::View)
      p = p->operands.at(0).get();
    return p->kind == ExprKind::Var && p->var == v;
  }

  /// For `let m = amax(X, d)` (X a variable, d a looped axis): the first later let of
  /// `body` that is `sum(exp(X - m), d)` of the same element type.
  const Stmt* partnerOfMax(const Stmt& maxLet, const std::vector<StmtRef>& body,
                           size_t at) const {
    const Expr& red = *maxLet.value;
    if (red.kind != ExprKind::Reduce || red.reduce != ReduceOp::Max || red.operands.empty() ||
        red.operands[0]->kind != ExprKind::Var || !red.operands[0]->type || !red.type ||
        red.dim < 0 || red.dim >= red.operands[0]->type->rank() ||
        !looped(red.operands[0]->type->dims[red.dim]))
      return nullptr;
    const int x = red.operands[0]->var;
    // The deferred lets the sum may reach its exponential through, those between the
    // max and the sum included (`auto e = hl::exp(x - m); hl::sum(e, 1)`).
    std::map<int, const Expr*> lets = deferred_;
    for (size_t i = at + 1; i < body.size(); ++i) {
      const Stmt& s = *body[i];
      if (s.kind == StmtKind::Let && s.value && overLoopedAxis(*s.value))
        lets[s.var] = s.value.get();
      if (s.kind != StmtKind::Let || !s.value || s.value->kind != ExprKind::Reduce ||
          s.value->reduce != ReduceOp::Sum || s.value->dim != red.dim)
        continue;
      const Expr* e = resolve(s.value->operands.at(0).get(), lets);
      if (e->kind != ExprKind::Unary || e->unary != UnaryOp::Exp)
        continue;
      const Expr* sub = e->operands.at(0).get();
      if (sub->kind == ExprKind::Binary && sub->binary == BinaryOp::Sub &&
          isVar(*sub->operands.at(0), x) && isVar(*sub->operands.at(1), maxLet.var) &&
          s.value->type && s.value->type->elem == red.type->elem)
        return &s;
    }
    return nullptr;
  }
};

} // namespace

Kernel onlineSoftmax(const Kernel& kernel, PassContext&) {
  if (dotTemplate(kernel) != DotTemplate::None)
    return kernel;
  Kernel k = kernel;
  k.body = Pairing(kernel).run(kernel.body);
  return k;
}

} // namespace helion::ir
