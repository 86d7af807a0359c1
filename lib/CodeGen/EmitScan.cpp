//===- EmitScan.cpp - Inclusive scans along a layout axis -------------------===//
//
// hl::cumsum / hl::cumprod along an axis whose S elements are spread over T threads,
// V at a time (helion/generic.cuh: per-thread element i sits at ((i / V) * T + th) * V + i % V).
// Round r = i / V covers the T*V consecutive coordinates [r*T*V, (r+1)*T*V): each
// thread scans its V elements, axis_scan_excl gives the combination of the threads
// before it in that round, and `carry` the combination of the earlier rounds:
//
//   S = 16, T = 2, V = 4; round 0: thread 0 holds 0-3, thread 1 holds 4-7;
//   out[5] = carry (identity) op excl (x0..x3, from thread 0) op part (x4, x5).
//
// Over a looped reduction axis the scan is deferred like any value over that axis and
// computed in each chunk loop that uses it, from the prefix the previous chunk left in
// `<var>_carry` (reset at off == 0, so each chunk loop that recomputes it starts over).
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;

namespace {
std::vector<int> without(std::vector<int> axes, int axis) {
  axes.erase(std::remove(axes.begin(), axes.end(), axis), axes.end());
  return axes;
}
} // namespace

void Emitter::emitScan(const Stmt& s, const Expr& scan, bool declare) {
  const Expr& operand = *scan.operands.at(0);
  const int axis = reducedAxis(operand.type->dims.at(scan.dim));
  const std::vector<int> axes = axesOf(*scan.type);
  if (int looped = loopedAxisOf(axes); looped >= 0)
    return deferLoopedScan(s, scan, axis, looped);
  if (declare)
    declareVar(s.var, *scan.type);
  const std::vector<int> all = varAxes_[s.var];
  if (axis < 0) { // a dim of size one: a copy
    openElementLoops(all);
    line(elementRef(varName(s.var), all) + " = " + computeType(scan.type->elem) + "(" +
         expr(operand) + ");");
    closeElementLoops(all);
    return;
  }
  const std::vector<int> other = without(all, axis);
  const std::string ct = computeType(scan.type->elem);
  const std::string ident = std::string(scan.binary == BinaryOp::Mul ? "OpProd" : "OpSum") +
                            "::identity<" + ct + ">()";
  // Inside a chunk loop of a looped axis: start from the earlier chunks' prefix.
  const bool chunked = axes_[axis].looped;
  const std::string carried = elementRef(varName(s.var) + "_carry", other);
  openReductionOutput(other);
  line(ct + " carry = " +
       (chunked ? "off_" + axes_[axis].key + " == 0 ? " + ident + " : " + carried : ident) + ";");
  emitScanRounds(s, scan, axis, ident);
  if (chunked)
    line(carried + " = carry;");
  closeReductionOutput(other);
}

/// Seen outside its chunk loops: the value is computed chunk by chunk where it is used
/// (deferred, as any value over a looped axis), each chunk's scan starting from the
/// carry the chunk before left in `<var>_carry` (reset at the first chunk).
void Emitter::deferLoopedScan(const Stmt& s, const Expr& scan, int axis, int looped) {
  const std::vector<int> axes = axesOf(*scan.type);
  int loopedCount = 0;
  for (int a : axes)
    loopedCount += axes_[a].looped;
  if (looped != axis || loopedCount != 1) {
    error(scan.loc, std::string(scan.binary == BinaryOp::Mul ? "hl::cumprod" : "hl::cumsum") +
                        " over a looped reduction axis other than the one it scans is not "
                        "supported yet: give that axis reduction_loops null");
    return;
  }
  std::string decl = computeType(scan.type->elem) + " " + varName(s.var) + "_carry";
  for (int a : without(axes, axis))
    decl += "[E_" + axes_[a].key + "]";
  line(decl + "; // the scan's prefix from the chunks before");
  deferred_[s.var] = &s;
  varAxes_[s.var] = axes;
}

/// The rounds of one scan (element loops of the other axes open, `carry` declared):
/// each thread's V elements of round r, then the threads before it (axis_scan_excl).
void Emitter::emitScanRounds(const Stmt& s, const Expr& scan, int axis, const std::string& ident) {
  const std::string ct = computeType(scan.type->elem);
  const std::string op = scan.binary == BinaryOp::Mul ? "OpProd()" : "OpSum()";
  const std::string& x = axes_[axis].key;
  const std::string elem = "const int i_" + x + " = r_" + x + " * V_" + x + " + u_" + x + ";";
  line("#pragma unroll");
  line("for (int r_" + x + " = 0; r_" + x + " < E_" + x + " / V_" + x + "; ++r_" + x + ") {");
  ++indent_;
  line(ct + " part[V_" + x + "];");
  line(ct + " run = " + ident + ";");
  line("#pragma unroll");
  line("for (int u_" + x + " = 0; u_" + x + " < V_" + x + "; ++u_" + x + ") {");
  line("  " + elem);
  line("  const int c_" + x + " = coord(i_" + x + ", th_" + x + ", T_" + x + ", V_" + x + ");");
  line("  if " + inBounds(axis) + " run = " + op + "(run, " + ct + "(" +
       expr(*scan.operands.at(0)) + "));");
  line("  part[u_" + x + "] = run;");
  line("}");
  line(ct + " total;");
  line("const " + ct + " before = " + op + "(carry, axis_scan_excl<T_" + x + ", ST_" + x +
       ">(run, " + op + ", (" + ct + "*)smem_raw[red_phase++ & 1], total));");
  line("#pragma unroll");
  line("for (int u_" + x + " = 0; u_" + x + " < V_" + x + "; ++u_" + x + ") {");
  line("  " + elem);
  line("  " + elementRef(varName(s.var), varAxes_[s.var]) + " = " + op + "(before, part[u_" + x +
       "]);");
  line("}");
  line("carry = " + op + "(carry, total);");
  --indent_;
  line("}");
}

} // namespace helion::codegen
