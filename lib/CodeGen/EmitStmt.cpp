//===- EmitStmt.cpp - Statements: lets, element loops, inner loops ---------===//
#include "EmitterState.h"
#include "helion/IR/Visitor.h"

#include <algorithm>
#include <functional>

namespace helion::codegen {

using namespace ir;

std::string Emitter::varName(int var) const {
  return "v" + std::to_string(var) + "_" + k_.vars.at(var).name;
}

void Emitter::lineDirective(const SourceLoc& loc) {
  if (loc.valid())
    os_ << "#line " << loc.line << " \"" << loc.file << "\"\n";
}

void Emitter::declareVar(int var, const BlockType& type) {
  std::vector<int> axes = axesOf(type);
  varAxes_[var] = axes;
  std::string decl = computeType(type.elem) + " " + varName(var);
  for (int a : axes)
    decl += "[E_" + axes_[a].key + "]";
  line(decl + ";");
}

// Element loops, outermost axis first so the vector axis is innermost. Inside,
// `c_<axis>` is the coordinate within the tile or chunk.
void Emitter::openElementLoops(const std::vector<int>& axes, int vectorAxis) {
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    const std::string& x = axes_[*it].key;
    line("#pragma unroll");
    if (*it == vectorAxis) {
      line("for (int g_" + x + " = 0; g_" + x + " < E_" + x + " / V_" + x + "; ++g_" + x + ") {");
    } else {
      line("for (int i_" + x + " = 0; i_" + x + " < E_" + x + "; ++i_" + x + ") {");
      ++indent_;
      line("const int c_" + x + " = coord(i_" + x + ", th_" + x + ", T_" + x + ", V_" + x + ");");
      --indent_;
    }
    ++indent_;
    openAxes_.insert(*it);
  }
}

void Emitter::closeElementLoops(const std::vector<int>& axes) {
  for (int a : axes) {
    (void)a;
    --indent_;
    line("}");
    openAxes_.erase(a);
  }
}


int Emitter::loopedAxisOf(const std::vector<int>& axes) const {
  for (int a : axes)
    if (axes_[a].looped && !activeChunks_.count(a))
      return a;
  return -1;
}


void Emitter::collectVars(const Expr& e, std::vector<int>& out) const {
  walkExpr(e, [&](const Expr& n) {
    if (n.kind == ExprKind::Var)
      out.push_back(n.var);
  });
}

// Emits, inside a chunk loop, the deferred lets `e` needs (dependencies first).
void Emitter::emitDeferredFor(const Expr& e, std::set<int>& emitted) {
  std::vector<int> vars;
  collectVars(e, vars);
  for (int v : vars) {
    auto it = deferred_.find(v);
    if (it == deferred_.end() || emitted.count(v))
      continue;
    emitted.insert(v);
    emitDeferredFor(*it->second->value, emitted);
    emitLet(*it->second, true);
  }
}

void Emitter::stmts(const std::vector<StmtRef>& body) {
  const std::vector<StmtRef>* outer = body_;
  size_t outerIndex = bodyIndex_;
  body_ = &body;
  for (bodyIndex_ = 0; bodyIndex_ < body.size(); ++bodyIndex_) {
    const Stmt& s = *body[bodyIndex_];
    if (s.kind == StmtKind::Let &&
        (fusedLets_.count(&s) || hoistedLets_.count(&s) || dotOperandLets_.count(&s)))
      continue; // computed by an earlier fused reduction / before the program loop / read by
                // its dot straight into shared memory
    stmt(s);
  }
  body_ = outer;
  bodyIndex_ = outerIndex;
}

void Emitter::stmt(const Stmt& s) {
  lineDirective(s.loc);
  switch (s.kind) {
  case StmtKind::Let: emitLet(s, true); return;
  case StmtKind::Assign:
    if (loopedAxisOf(varAxes_[s.var]) >= 0) {
      error(s.loc, "a value over a looped reduction axis cannot be reassigned; use "
                   "reduction_loops: null (persistent) for this kernel");
      return;
    }
    emitLet(s, false);
    return;
  case StmtKind::Store: emitStore(s); return;
  case StmtKind::For: emitInnerLoop(s); return;
  }
}

void Emitter::emitLet(const Stmt& s, bool declare) {
  const Expr& v = *s.value;
  std::vector<int> axes = axesOf(*v.type);
  if (v.kind == ExprKind::Scan) // defers itself over a looped axis (EmitScan.cpp)
    return emitScan(s, v, declare);
  if (declare && loopedAxisOf(axes) >= 0) {
    deferred_[s.var] = &s; // recomputed inside the chunk loops that use it
    varAxes_[s.var] = axes;
    return;
  }
  if (declare && s.recompute) {
    inlined_[s.var] = &s; // recomputed at each use (rematerialize): no register array
    varAxes_[s.var] = axes;
    return;
  }
  if (v.kind == ExprKind::Load)
    return emitLoad(s, v, declare);
  if (v.kind == ExprKind::Reduce)
    return emitReduce(s, v, declare);
  if (v.kind == ExprKind::Dot)
    return emitDot(s, v, declare);
  if (declare)
    declareVar(s.var, *v.type);
  std::vector<int> target = varAxes_[s.var];
  if (v.kind == ExprKind::Rand && v.randRunTile >= 0 && emitRandRun(s, v, target))
    return;
  if (v.kind == ExprKind::Rand) { // one Philox block per four consecutive offsets
    randStream_ = "rs_" + std::to_string(s.var);
    line("hd::RandStream " + randStream_ + ";");
  }
  openElementLoops(target);
  std::string value;
  if (v.kind == ExprKind::Full)
    value = expr(*v.operands.at(0));
  else if (v.kind == ExprKind::Arange)
    value = target.empty() ? "int64(0)" : "int64(c_" + axes_[target[0]].key + ")";
  else
    value = expr(v);
  line(elementRef(varName(s.var), target) + " = " + computeType(k_.vars.empty() ? v.type->elem
                                                                                 : v.type->elem) +
       "(" + value + ");");
  closeElementLoops(target);
  randStream_.clear();
}

/// A rand the rand-runs pass marked: each thread's run of V_x elements along the
/// vectorized tile takes its numbers from hd::RandStream::uniform_run, given the
/// offset of the run's first element (the offsets step by one along the run).
bool Emitter::emitRandRun(const Stmt& s, const Expr& v, const std::vector<int>& target) {
  int axis = -1;
  for (int a : target)
    if (axes_[a].isTile && axes_[a].id == v.randRunTile)
      axis = a;
  if (axis < 0)
    return false;
  const std::string& x = axes_[axis].key;
  const std::string stream = "rs_" + std::to_string(s.var), run = "rr_" + std::to_string(s.var);
  line("hd::RandStream " + stream + ";");
  openElementLoops(target, axis);
  line("float " + run + "[V_" + x + "];");
  line("{");
  ++indent_;
  line("const int i_" + x + " = g_" + x + " * V_" + x + ";");
  line("const int c_" + x + " = coord(i_" + x + ", th_" + x + ", T_" + x + ", V_" + x + ");");
  line(stream + ".uniform_run<V_" + x + ">(int64(" + expr(*v.operands.at(0)) + "), int64(" +
       expr(*v.operands.at(1)) + "), " + run + ");");
  --indent_;
  line("}");
  line("#pragma unroll");
  line("for (int v = 0; v < V_" + x + "; ++v) {");
  ++indent_;
  line("const int i_" + x + " = g_" + x + " * V_" + x + " + v;");
  line(elementRef(varName(s.var), target) + " = " + computeType(v.type->elem) + "(" + run +
       "[v]);");
  --indent_;
  line("}");
  closeElementLoops(target);
  return true;
}

std::string Emitter::tileEnd(int t) {
  const TileVar& tv = k_.tiles.at(t);
  return tv.flatOfParam >= 0 ? genNumel(k_.params[tv.flatOfParam]) : scalarExpr(*tv.end);
}

void Emitter::emitInnerLoop(const Stmt& s) {
  // apply-config's unroll factor: 0 leaves the choice to NVRTC, N unrolls the outermost
  // tile loop of this statement N times (1 keeps it rolled).
  const int unroll = s.unroll;
  const bool pipe = &s == pipeLoop_;
  for (int t : s.tiles) {
    const TileVar& tv = k_.tiles.at(t);
    std::string n = "t" + std::to_string(t);
    std::string bs = std::to_string(tileBlockSize(t));
    line("const int64 end_" + n + " = " + tileEnd(t) + ";");
    if (pipe)
      emitPipelinePrologue(s);
    if (unroll > 0 && t == s.tiles.front())
      line("#pragma unroll " + std::to_string(unroll));
    line("for (int64 tb_" + n + " = " + scalarExpr(*tv.begin) + "; tb_" + n + " < end_" + n +
         "; tb_" + n + " += " + bs + ") {");
    ++indent_;
    line("const int64 te_" + n + " = hd::minimum<int64>(tb_" + n + " + " + bs + ", end_" + n +
         ");");
  }
  emitEarlyCopies(s);
  stmts(s.body);
  if (pipe)
    line("if constexpr (PIPE) pipe_stage = pipe_stage + 1 == STAGES ? 0 : pipe_stage + 1;");
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    --indent_;
    line("}");
  }
}

} // namespace helion::codegen
