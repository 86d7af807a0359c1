//===- MmaLayout.cpp - The mma layout, as the mma-layout pass decided it ---===//
//
// The mma-layout pass (lib/Transforms/MmaLayout.cpp, ir::planMma) marks each tile's
// role, each dot's operands and the pipelined dot in the IR. This reads those marks
// into what the printers look up (EmitMmaDot.cpp, EmitDotPipeline.cpp, Layout.cpp):
// the load a copied operand reads and its let, each tile's role, and the pipelined
// dot's loop.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/IR/Visitor.h"

namespace helion::codegen {

using namespace ir;

void Emitter::planMmaLayout() {
  std::map<int, const Stmt*> letOf;
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Let && s.value)
      letOf[s.var] = &s;
  });
  // The load a copied operand reads: itself, through a transpose, through its let.
  auto loadOf = [&](const Expr& op, const Stmt** let) -> const Expr* {
    *let = nullptr;
    const Expr* e = op.kind == ExprKind::Transpose ? op.operands[0].get() : &op;
    if (e->kind == ExprKind::Var) {
      *let = letOf.at(e->var);
      e = (*let)->value.get();
    }
    return e;
  };
  auto note = [&](const Stmt& s, const Stmt* loop) {
    if ((s.kind != StmtKind::Let && s.kind != StmtKind::Assign) || !s.value ||
        s.value->kind != ExprKind::Dot || !s.value->mma)
      return;
    const Expr& d = *s.value;
    MmaDotPlan p;
    if (d.mma->a == MmaDotInfo::Operand::Copied)
      p.loadA = loadOf(*d.operands[0], &p.letA);
    if (d.mma->b == MmaDotInfo::Operand::Copied)
      p.loadB = loadOf(*d.operands[1], &p.letB);
    p.registerA = d.mma->a == MmaDotInfo::Operand::Registers;
    for (const Stmt* let : {p.letA, p.letB})
      if (let)
        dotOperandLets_.insert(let);
    if (d.mma->early)
      p.earlyLoop = loop;
    if (d.mma->stages > 0) {
      pipeDot_ = &d;
      pipeLoop_ = loop;
    }
    mmaDots_[&d] = p;
  };
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::For)
      for (const StmtRef& b : s.body)
        note(*b, &s);
  });
  mmaLayout_ = !mmaDots_.empty();
  if (!mmaLayout_)
    return;
  for (const TileVar& t : k_.tiles)
    if (t.mma != MmaRole::None)
      mmaRole_[AxisKey{true, t.id}] = t.mma;
}

} // namespace helion::codegen
