//===- Layout.cpp - How a kernel's values spread over the CTA's threads --===//
//
// planLayout reads the layout the thread-layout pass decided (Kernel::threadLayout,
// lib/Transforms/ThreadLayout.cpp) into the emitter's axes and the side tables the
// printers look up; emitLayoutConstants prints each axis's S_, ST_, V_, T_, E_, th_ and
// X_ constants at the top of the kernel.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/IR/DotShape.h"
#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;

// Every tile and reduction axis of the layout, in its order: S is a tile's block size,
// a looped axis's chunk, or a persistent axis's whole extent (RDIM<id>, a template
// argument the launcher instantiates per extent).
void Emitter::planLayout() {
  layout_ = ir::LayoutIndex(k_);
  for (const ThreadAxis& t : *k_.threadLayout) {
    LayoutAxis a;
    a.isTile = t.isTile;
    a.id = t.id;
    a.key = (t.isTile ? "t" : "a") + std::to_string(t.id);
    if (t.isTile) {
      a.size = std::to_string(tileBlockSize(t.id));
    } else if (k_.axes.at(t.id).looped()) {
      a.looped = true;
      a.size = std::to_string(k_.axes.at(t.id).loopChunk);
    } else {
      a.size = "RDIM" + std::to_string(t.id);
      out_.templateArgs.push_back({TemplateArg::Kind::ReductionDim, t.id});
    }
    a.inner = t.inner;
    a.after = t.after;
    if (auto role = mmaRole_.find(AxisKey{t.isTile, t.id}); role != mmaRole_.end())
      a.mma = role->second;
    axes_.push_back(a);
  }
  // Every axis gets a bit of EXACT: the launcher sets it when the axis's
  // extent fills its tiles / chunks / RDIM, and its bounds checks fold away.
  for (const LayoutAxis& a : axes_) {
    ExactAxis e;
    e.isTile = a.isTile;
    e.id = a.id;
    e.chunk = a.isTile ? tileBlockSize(a.id) : a.looped ? std::stoll(a.size) : 0;
    out_.exactAxes.push_back(e);
  }
}

void Emitter::emitLayoutConstants() {
  line("constexpr int NT = " + std::to_string(out_.numThreads) + ";");
  const bool batchedDots = ir::containsBatchedDot(k_);
  for (const LayoutAxis& a : axes_) {
    const std::string& x = a.key;
    std::string stride = "1";
    for (int j : a.after) {
      const std::string& y = axes_[j].key;
      stride = stride == "1" ? "ST_" + y + " * T_" + y
                             : "hmax(" + stride + ", ST_" + y + " * T_" + y + ")";
    }
    line("// axis " + x + ": " +
         (a.isTile ? "tile " + k_.tiles[a.id].name : "reduction axis a" + std::to_string(a.id)) +
         (a.looped ? " (looped)" : ""));
    line("constexpr int S_" + x + " = " + a.size + ";");
    if (a.mma != MmaRole::None) {
      emitMmaAxis(a);
      continue;
    }
    line("constexpr int ST_" + x + " = " + stride + ";");
    // The elements of the later axes that go past this one (rows of the same program):
    // the threads this axis leaves them.
    std::string rows;
    const int self = static_cast<int>(&a - axes_.data());
    for (size_t k = self + 1; k < axes_.size(); ++k)
      if (axes_[k].size != "1" &&
          std::find(axes_[k].after.begin(), axes_[k].after.end(), self) != axes_[k].after.end())
        rows += (rows.empty() ? "" : " * ") + axes_[k].size; // S_ of a later axis
    // An inner axis's vector: the widest that keeps every thread busy (axis_vec).
    line("constexpr int V_" + x + " = " +
         (a.inner ? "axis_vec(VEC, S_" + x + ", NT / ST_" + x + " > 0 ? NT / ST_" + x + " : 1, " +
                        (rows.empty() ? "1" : "1LL * " + rows) + ")"
                  : "1") +
         ";");
    // A reduction axis that later axes (rows of the same program) go past leaves them
    // threads: at most NT / (their sizes) threads, at least a warp, so that a program of
    // several short rows reduces them side by side rather than one after another over
    // all its threads.
    std::string threads = "hmin(NT / ST_" + x + " > 0 ? NT / ST_" + x + " : 1, S_" + x + " / V_" +
                          x + ")";
    if (!a.isTile && !a.looped && !rows.empty())
      threads = "hmin(" + threads + ", hmax(32, NT / (ST_" + x + " * " + rows + ")))";
    line("constexpr int T_" + x + " = " + threads + ";");
    line("constexpr int E_" + x + " = S_" + x + " / T_" + x + ";");
    line("const int th_" + x + " = (threadIdx.x / ST_" + x + ") % T_" + x + ";");
    // A tile of block size 1 (a bmm-style batch tile): its one element's loop index and
    // coordinate for code outside element loops over it (the mma layout's batched dots,
    // EmitMmaDot.cpp); element loops over it shadow them with the same values.
    if (mmaLayout_ && batchedDots && a.isTile && tileBlockSize(a.id) == 1)
      line("constexpr int i_" + x + " = 0; const int c_" + x + " = coord(0, th_" + x + ", T_" +
           x + ", V_" + x + ");");
    line("constexpr bool X_" + x + " = (EXACT >> " + std::to_string(&a - axes_.data()) +
         ") & 1; // no bounds checks needed");
    if (!a.isTile)
      line("const int64 ext_" + x + " = " + axisExtent(static_cast<int>(&a - axes_.data())) + ";");
    if (!a.isTile && !a.looped)
      line("const int64 off_" + x + " = 0;");
  }
  // Two buffers for axis_reduce, used alternately (one barrier per reduction); only in
  // kernels with a reduction or a scan (else NVRTC warns of unused variables).
  if (ir::findExpr(k_.body, [](const ir::Expr& e) {
        return e.kind == ir::ExprKind::Reduce || e.kind == ir::ExprKind::Scan;
      })) {
    line("__shared__ double smem_raw[2][NT];");
    line("int red_phase = 0;");
  }
}

} // namespace helion::codegen
