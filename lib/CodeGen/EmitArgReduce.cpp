//===- EmitArgReduce.cpp - argmax / argmin over a layout axis ---------------===//
//
// Each thread keeps its best value and the first index that holds it, over its
// elements (and over the chunks of a looped axis: indices only grow, so a strict
// comparison keeps the first). Then the threads of the axis agree on the best value
// (axis_reduce with OpMax/OpMin, which propagate NaN as torch.argmax treats NaN as
// the extreme) and on the smallest index among the threads that hold it (OpMin).
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

namespace helion::codegen {

using namespace ir;

void Emitter::emitArgReduce(const Stmt& s, const Expr& red, bool declare) {
  const Expr& operand = *red.operands.at(0);
  if (declare)
    declareVar(s.var, *red.type);
  std::vector<int> outAxes = varAxes_[s.var];
  const Dim& d = operand.type->dims.at(red.dim);
  const int axis = reducedAxis(d);
  const bool isMax = red.reduce == ReduceOp::ArgMax;
  const std::string vt = computeType(operand.type->elem);
  const std::string mx = isMax ? "true" : "false";
  auto openOut = [&] { openReductionOutput(outAxes); };
  auto closeOut = [&] { closeReductionOutput(outAxes); };
  std::string dst = elementRef(varName(s.var), outAxes);
  if (axis < 0) { // a dim of size one: its only index
    openOut();
    line(dst + " = int64(0);");
    closeOut();
    return;
  }
  const std::string& x = axes_[axis].key;
  const std::string index = axes_[axis].isTile ? "int64(c_" + x + ")" : "(off_" + x + " + c_" + x + ")";
  const bool chunked = axes_[axis].looped && !activeChunks_.count(axis);
  const std::string accV = "accv_" + varName(s.var), accI = "acci_" + varName(s.var);
  if (chunked) {
    std::string dv = vt + " " + accV, di = "int64 " + accI;
    for (int a : outAxes) {
      dv += "[E_" + axes_[a].key + "]";
      di += "[E_" + axes_[a].key + "]";
    }
    line(dv + ";");
    line(di + ";");
    openOut();
    line(elementRef(accV, outAxes) + " = hd::arg_init<" + mx + ", " + vt + ">();");
    line(elementRef(accI, outAxes) + " = -1;");
    closeOut();
    openChunkLoop(axis, operand);
  }
  openOut();
  line(vt + " arg_best = " + (chunked ? elementRef(accV, outAxes) : "hd::arg_init<" + mx + ", " + vt + ">()") + ";");
  line("int64 arg_bi = " + (chunked ? elementRef(accI, outAxes) : std::string("-1")) + ";");
  line("#pragma unroll");
  line("for (int i_" + x + " = 0; i_" + x + " < E_" + x + "; ++i_" + x + ") {");
  ++indent_;
  line("const int c_" + x + " = coord(i_" + x + ", th_" + x + ", T_" + x + ", V_" + x + ");");
  line("if " + inBounds(axis) + " {");
  line("  const " + vt + " arg_v = " + vt + "(" + expr(operand) + ");");
  line("  if (hd::arg_better<" + mx + ">(arg_v, arg_best, arg_bi)) { arg_best = arg_v; arg_bi = " + index + "; }");
  line("}");
  --indent_;
  line("}");
  if (chunked) {
    line(elementRef(accV, outAxes) + " = arg_best;");
    line(elementRef(accI, outAxes) + " = arg_bi;");
    closeOut();
    closeChunkLoop(axis);
    openOut();
    line(vt + " arg_best = " + elementRef(accV, outAxes) + ";");
    line("int64 arg_bi = " + elementRef(accI, outAxes) + ";");
  }
  const std::string op = isMax ? "OpMax" : "OpMin";
  line("const " + vt + " arg_m = axis_reduce<T_" + x + ", ST_" + x + ">(arg_best, " + op + "(), (" + vt +
       "*)smem_raw[red_phase++ & 1]);");
  line("const int64 arg_cand = arg_bi >= 0 && (arg_best == arg_m || (arg_m != arg_m && arg_best != arg_best)) ? arg_bi : "
       "int64(0x7fffffffffffffffLL);");
  line(dst + " = axis_reduce<T_" + x + ", ST_" + x +
       ">(arg_cand, OpMin(), (int64*)smem_raw[red_phase++ & 1]);");
  closeOut();
}

} // namespace helion::codegen
