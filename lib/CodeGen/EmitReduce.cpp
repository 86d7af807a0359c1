//===- EmitReduce.cpp - Reductions over a layout axis -----------------------===//
//
// A reduction combines each thread's elements, then the threads of the axis
// (axis_reduce: shuffles, then shared memory); over a looped axis it runs
// inside the chunk loop, and an amax followed by sum(exp(x - max)) fuses into
// one online pass (the online-softmax pass pairs them).
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

namespace helion::codegen {

using namespace ir;

// Online softmax normalizer: the online-softmax pass pairs `let m = amax(X, d)` over a
// looped axis with a later `let s = sum(exp(X - m), d)` of the same body
// (Stmt::onlineSum); both are computed in the same pass over the chunks, with a running
// maximum that rescales the running sum, so X is read once instead of twice.
const Stmt* Emitter::onlineSumPartner(const Stmt& maxLet) const {
  if (!body_ || maxLet.onlineSum < 0)
    return nullptr;
  for (size_t i = bodyIndex_ + 1; i < body_->size(); ++i) {
    const Stmt& s = *(*body_)[i];
    if (s.kind == StmtKind::Let && s.var == maxLet.onlineSum)
      return &s;
  }
  return nullptr;
}

void Emitter::emitReduce(const Stmt& s, const Expr& red, bool declare) {
  if (red.reduce == ReduceOp::ArgMax || red.reduce == ReduceOp::ArgMin)
    return emitArgReduce(s, red, declare);
  const Expr& operand = *red.operands.at(0);
  const BlockType& inType = *operand.type;
  if (declare)
    declareVar(s.var, *red.type);
  std::vector<int> outAxes = varAxes_[s.var];
  const Dim& d = inType.dims.at(red.dim);
  const int axis = reducedAxis(d);
  std::string ct = computeType(red.type->elem);
  auto openOut = [&] { openReductionOutput(outAxes); };
  auto closeOut = [&] { closeReductionOutput(outAxes); };
  std::string dst = elementRef(varName(s.var), outAxes);
  if (axis < 0) { // reducing a dim of size one: a copy
    openOut();
    line(dst + " = " + ct + "(" + expr(operand) + ");");
    closeOut();
    return;
  }
  static const char* ops[] = {"OpSum", "OpMax", "OpMin", "OpSum"};
  std::string op = ops[static_cast<int>(red.reduce)];
  const std::string& x = axes_[axis].key;
  std::string ident = op + "::identity<" + ct + ">()";
  std::string extent = axes_[axis].isTile ? "(te_t" + std::to_string(axes_[axis].id) + " - tb_t" +
                                                std::to_string(axes_[axis].id) + ")"
                                          : "ext_" + x;
  std::string finish = "axis_reduce<T_" + x + ", ST_" + x + ">(acc, " + op + "(), (" + ct +
                       "*)smem_raw[red_phase++ & 1])";
  if (red.reduce == ReduceOp::Mean)
    finish = "(" + finish + " / " + ct + "(" + extent + "))";

  const bool chunked = axes_[axis].looped && !activeChunks_.count(axis);
  std::string acc = "acc_" + varName(s.var);
  const Stmt* partner = chunked ? onlineSumPartner(s) : nullptr;
  if (partner) {
    const Expr& x = *red.operands[0];
    const std::string& k = axes_[axis].key;
    declareVar(partner->var, *partner->value->type);
    fusedLets_.insert(partner);
    std::string dstS = elementRef(varName(partner->var), outAxes);
    std::string accS = "acc_" + varName(partner->var);
    std::string decl = ct + " " + acc, declS = ct + " " + accS;
    for (int a : outAxes) {
      decl += "[E_" + axes_[a].key + "]";
      declS += "[E_" + axes_[a].key + "]";
    }
    line(decl + ";");
    line(declS + ";");
    openOut();
    line(elementRef(acc, outAxes) + " = " + ident + ";");
    line(elementRef(accS, outAxes) + " = " + ct + "(0);");
    closeOut();
    openChunkLoop(axis, x);
    openOut();
    line(ct + " cm = " + ident + ";");
    line("#pragma unroll");
    line("for (int i_" + k + " = 0; i_" + k + " < E_" + k + "; ++i_" + k + ") {");
    line("  const int c_" + k + " = coord(i_" + k + ", th_" + k + ", T_" + k + ", V_" + k + ");");
    line("  if " + inBounds(axis) + " cm = OpMax()(cm, " + ct + "(" + expr(x) + "));");
    line("}");
    line("const " + ct + " m_old = " + elementRef(acc, outAxes) + ";");
    line("const " + ct + " m_new = OpMax()(m_old, cm);");
    line(ct + " cs = " + ct + "(0);");
    line("#pragma unroll");
    line("for (int i_" + k + " = 0; i_" + k + " < E_" + k + "; ++i_" + k + ") {");
    line("  const int c_" + k + " = coord(i_" + k + ", th_" + k + ", T_" + k + ", V_" + k + ");");
    line("  if " + inBounds(axis) + " cs += hd::exp(" + ct + "(" + expr(x) + ") - m_new);");
    line("}");
    line("// (a max still at -inf has nothing to rescale: avoids -inf - -inf)");
    line(elementRef(accS, outAxes) + " = (m_old == m_new ? " + elementRef(accS, outAxes) + " : " +
         elementRef(accS, outAxes) + " * hd::exp(m_old - m_new)) + cs;");
    line(elementRef(acc, outAxes) + " = m_new;");
    closeOut();
    closeChunkLoop(axis);
    openOut();
    line("const " + ct + " m_all = axis_reduce<T_" + k + ", ST_" + k + ">(" +
         elementRef(acc, outAxes) + ", OpMax(), (" + ct + "*)smem_raw[red_phase++ & 1]);");
    line("const " + ct + " m_th = " + elementRef(acc, outAxes) + ";");
    line("const " + ct + " s_th = m_th == m_all ? " + elementRef(accS, outAxes) + " : " +
         elementRef(accS, outAxes) + " * hd::exp(m_th - m_all);");
    line(dst + " = m_all;");
    line(dstS + " = axis_reduce<T_" + k + ", ST_" + k + ">(s_th, OpSum(), (" + ct + "*)smem_raw[red_phase++ & 1]);");
    closeOut();
    return;
  }
  if (chunked) {
    std::string decl = ct + " " + acc;
    for (int a : outAxes)
      decl += "[E_" + axes_[a].key + "]";
    line(decl + ";");
    openOut();
    line(elementRef(acc, outAxes) + " = " + ident + ";");
    closeOut();
    openChunkLoop(axis, operand);
  }
  openOut();
  line(ct + " acc = " + (chunked ? elementRef(acc, outAxes) : ident) + ";");
  line("#pragma unroll");
  line("for (int i_" + x + " = 0; i_" + x + " < E_" + x + "; ++i_" + x + ") {");
  ++indent_;
  line("const int c_" + x + " = coord(i_" + x + ", th_" + x + ", T_" + x + ", V_" + x + ");");
  // A zero-padded operand (accumulate-partials) holds zeros past the tile: no check.
  line("if " + (red.zeroPadded ? std::string("(true)") : inBounds(axis)) + " acc = " + op +
       "()(acc, " + ct + "(" + expr(operand) + "));");
  --indent_;
  line("}");
  if (chunked) {
    line(elementRef(acc, outAxes) + " = acc;");
    closeOut();
    closeChunkLoop(axis);
    openOut();
    line(ct + " acc = " + elementRef(acc, outAxes) + ";");
  }
  line(dst + " = " + finish + ";");
  closeOut();
}

int Emitter::reducedAxis(const Dim& d) const { return layout_.dim(d); }

void Emitter::openReductionOutput(const std::vector<int>& outAxes) {
  openElementLoops(outAxes);
  if (outAxes.empty()) {
    line("{");
    ++indent_;
  }
}

void Emitter::closeReductionOutput(const std::vector<int>& outAxes) {
  if (outAxes.empty()) {
    --indent_;
    line("}");
  }
  closeElementLoops(outAxes);
}

void Emitter::openChunkLoop(int axis, const Expr& operand) {
  const std::string& k = axes_[axis].key;
  line("for (int64 off_" + k + " = 0; off_" + k + " < ext_" + k + "; off_" + k + " += S_" + k +
       ") {");
  ++indent_;
  activeChunks_.insert(axis);
  std::set<int> emitted;
  emitDeferredFor(operand, emitted);
}

void Emitter::closeChunkLoop(int axis) {
  activeChunks_.erase(axis);
  --indent_;
  line("}");
}

} // namespace helion::codegen
