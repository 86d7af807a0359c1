//===- EmitMmaDot.cpp - General dots on register fragments -----------------===//
//
// Prints the dots MmaLayout.cpp planned (helion/dot.cuh, hd::MmaDot):
//
//   let %d = dot(%a, %b, %acc)            // %a: [tm, tk], %b: [tk, tn]
// becomes
//   d[..] = acc[..]                       // the result, in the accumulator layout
//   __syncthreads();                      // the staging area is free
//   copy of the loaded operands into shared memory (all threads, vectors)
//   __syncthreads();
//   if constexpr (D::kWgmma)               // sm_90a, 16-bit operands (dot.cuh)
//     d's registers into the wgmma order; each warpgroup's wgmma m64nNk16 per
//     fragment and k step (A from shared memory or packed from %a's registers);
//     wait; back
//   else for each 16-row fragment f of this warp, k step ks:
//     A fragment: ldmatrix from shared memory, or packed from %a's registers
//     for each 8 columns: B fragment (ldmatrix.trans), mma.sync into d's registers
//
// Each writer of the operands calls D::publish() (the wgmma form's proxy fence)
// before the barrier that precedes the dot.
//
// The layout constants of the row and column axes (thread bits, pairs) are
// printed by emitMmaAxis.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/Config/DotStaging.h"
#include "helion/IR/Visitor.h"

namespace helion::codegen {

using namespace ir;

void Emitter::emitMmaAxis(const LayoutAxis& a) {
  const std::string& x = a.key;
  const bool col = a.mma == MmaRole::Col;
  line(col ? "// mma columns: lanes % 4, elements in pairs (EmitMmaDot.cpp)"
           : "// mma rows: threads / 4, 16 rows per warp and fragment (EmitMmaDot.cpp)");
  line("constexpr int ST_" + x + " = " + (col ? "1" : "4") + ";");
  line("constexpr int V_" + x + " = " + (col ? "2" : "1") + ";");
  line("constexpr int T_" + x + " = " + (col ? "4" : "NT / 4") + ";");
  line("constexpr int E_" + x + " = S_" + x + " / T_" + x + ";");
  line("static_assert(S_" + x + " % " + (col ? "8" : "(2 * T_" + x + ")") +
       " == 0, \"helionc: an mma layout tile does not divide\");");
  line("const int th_" + x + " = " + (col ? "threadIdx.x % 4" : "threadIdx.x / 4") + ";");
  line("constexpr bool X_" + x + " = (EXACT >> " + std::to_string(&a - axes_.data()) +
       ") & 1; // no bounds checks needed");
}

std::string Emitter::elementAt(const std::string& name, const std::vector<int>& axes,
                               const std::map<int, std::string>& index) const {
  std::string s = name;
  for (int a : axes) {
    auto it = index.find(a);
    s += "[" + (it != index.end() ? it->second : "i_" + axes_[a].key) + "]";
  }
  return s;
}

void Emitter::emitMmaStaging() {
  std::string bytes;
  int site = 0;
  std::vector<std::string> early; // the early dots' sites, in order
  std::vector<const Expr*> staged;
  // A register cap (launch bounds, maxnreg) can leave too few for a wgmma's accumulators.
  if (!regCap_.empty())
    line("constexpr int REG_CAP = " + regCap_ + "; // registers per thread (launch bounds)");
  walkStmts(k_.body, [&](const Stmt& s) {
    if ((s.kind != StmtKind::Let && s.kind != StmtKind::Assign) || !s.value ||
        s.value->kind != ExprKind::Dot)
      return;
    const Expr& d = *s.value;
    if (!checkDot(d))
      return;
    staged.push_back(&d);
    const MmaDotPlan& p = mmaDots_.at(&d);
    const std::string name = "D" + std::to_string(site);
    dotSite_[&d] = site++;
    const BlockType &a = *d.operands[0]->type, &b = *d.operands[1]->type;
    line("// general hl::dot #" + name.substr(1) +
         " (EmitMmaDot.cpp): mma.sync (wgmma on sm_90a) on register fragments; A " +
         (p.loadA       ? "copied to shared memory"
          : p.registerA ? "in registers"
                        : "staged") +
         ", B " + (p.loadB ? "copied to shared memory" : "staged"));
    // A B loaded through .transpose (a [N, K] tensor) is kept as [N][K]: its rows copy
    // as vectors and ldmatrix reads it without .trans (stageMmaLoad's alongRows).
    const int bk = matDim(b, 0).axis;
    const bool bNK = p.loadB && bk >= 0 && axes_[bk].isTile &&
                     lastSubscriptAxis(p.loadB->param, p.loadB->indices) == bk;
    const std::string cap = regCap_.empty() ? "" : std::string(bNK ? ", true" : ", false") + ", REG_CAP";
    line("using " + name + " = hd::MmaDot<" + storageType(a.elem) + ", " + storageType(b.elem) +
         ", " + matDim(a, 0).size + ", " + matDim(b, 1).size + ", " +
         matDim(a, 1).size + ", NT, " + (p.registerA ? "false" : "true") +
         (cap.empty() && bNK ? ", true" : cap) + ">;");
    std::string term = name + "::kBytes";
    if (&d == pipeDot_) { // the ring's buffers: as many as fit (per instantiation)
      line("constexpr int STAGES = hmax(1, hmin(" + std::to_string(d.mma->stages) + ", " +
           std::to_string(config::kDotStagingLimit) + " / " + term + "));");
      line("constexpr bool PIPE = STAGES >= 2;");
      term = "STAGES * " + term;
    }
    if (p.earlyLoop) {
      early.push_back(name);
      return;
    }
    bytes = bytes.empty() ? term : "hmax(" + bytes + ", " + term + ")";
  });
  // Early dots copy into buffers of their own past every other dot's (whose copies may
  // run between an early copy and its dot), where that fits (EARLY<n>, per
  // instantiation); otherwise they copy at the dot, at offset 0 (DOFF<n>).
  std::string end = bytes.empty() ? "0" : bytes;
  for (const std::string& name : early) {
    const std::string n = name.substr(1);
    // 1024-byte aligned: the wgmma form's swizzled B (dot.cuh).
    line("constexpr int EOFF" + n + " = (" + end + " + 1023) / 1024 * 1024;");
    line("constexpr bool EARLY" + n + " = EOFF" + n + " + " + name + "::kBytes <= " +
         std::to_string(config::kDotStagingLimit) + ";");
    line("constexpr int DOFF" + n + " = EARLY" + n + " ? EOFF" + n + " : 0;");
    end = "EOFF" + n + " + (EARLY" + n + " ? " + name + "::kBytes : 0)";
    bytes = bytes.empty() ? name + "::kBytes" : "hmax(" + bytes + ", " + name + "::kBytes)";
  }
  if (!early.empty())
    bytes = "hmax(" + bytes + ", " + end + ")";
  emitDotSmem(bytes, "operands", staged);
}

void Emitter::emitMmaDot(const Stmt& s, const Expr& dot, bool declare) {
  auto found = dotSite_.find(&dot);
  if (found == dotSite_.end()) {
    if (ok_) // checkDot reported why; otherwise this is a bug
      error(dot.loc, "internal compiler error: a dot without a staging site");
    return;
  }
  const MmaDotPlan& p = mmaDots_.at(&dot);
  const std::string site = "D" + std::to_string(found->second);
  const std::string buf = dotBuffer(dot, site);
  if (declare)
    declareVar(s.var, *dot.type);
  const std::vector<int> target = varAxes_[s.var];
  const std::string res = varName(s.var);
  const bool inPlace = !declare && dot.operands.size() > 2 &&
                       dot.operands[2]->kind == ExprKind::Var && dot.operands[2]->var == s.var;
  if (!inPlace) {
    openElementLoops(target);
    line(elementRef(res, target) + " = " +
         (dot.operands.size() > 2 ? "float(" + expr(*dot.operands[2]) + ")" : "0.f") + ";");
    closeElementLoops(target);
  }
  const bool pipelined = &dot == pipeDot_;
  const bool early = p.earlyLoop != nullptr;
  if (early) {
    line("if constexpr (EARLY" + site.substr(1) + ") {");
    line("  hd::cp_async_wait<0>(); // the copies issued at the top of the loop's iteration");
    line("  " + site + "::publish();");
    line("  __syncthreads();");
    line("} else {");
    ++indent_;
  }
  if (pipelined) {
    line("if constexpr (PIPE) {");
    ++indent_;
    line("hd::cp_async_wait<hmax(STAGES - 2, 0)>(); // this tile's copies (later tiles' may "
         "be in flight)");
    line(site + "::publish();");
    line("__syncthreads();");
    emitPipelinePrefetch(*pipeLoop_);
    --indent_;
    line("} else {");
    ++indent_;
  }
  line("__syncthreads(); // the staging area is free (an earlier dot's readers are done)");
  line(site + "::zero_padding(dot_smem, threadIdx.x);");
  if (p.loadA)
    stageMmaLoad(*dot.operands[0], *p.loadA, site, true, "dot_smem", false);
  else if (!p.registerA)
    stageMmaRegisters(*dot.operands[0], site, true);
  if (p.loadB)
    stageMmaLoad(*dot.operands[1], *p.loadB, site, false, "dot_smem", false);
  else
    stageMmaRegisters(*dot.operands[1], site, false);
  line(site + "::publish();");
  line("__syncthreads();");
  if (pipelined || early) {
    --indent_;
    line("}");
  }

  const Expr& a = *dot.operands[0];
  const int R = matDim(*dot.type, 0).axis, C = matDim(*dot.type, 1).axis;
  const int K = matDim(*a.type, 1).axis;
  const std::string &rk = axes_[R].key, &ck = axes_[C].key;
  auto acc = [&](const std::string& row, const std::string& col) {
    return elementAt(res, target, {{R, row}, {C, col}});
  };
  auto mma = [&](const std::string& n0, const std::string& b0, const std::string& b1) {
    line("#pragma unroll");
    line("for (int f = 0; f < E_" + rk + " / 2; ++f)");
    line("  " + site + "::mma(" + acc("2 * f", n0) + ", " + acc("2 * f", n0 + " + 1") + ", " +
         acc("2 * f + 1", n0) + ", " + acc("2 * f + 1", n0 + " + 1") + ", af[f], " + b0 + ", " +
         b1 + ");");
  };
  // A's register fragment f of k step ks, from the elements of %a (the column axis's
  // layout along K), into `to`.
  auto registerA = [&](const std::string& to) {
    const std::string& kk = axes_[K].key;
    line("float ae[2][" + site + "::kKPerThread];");
    line("#pragma unroll");
    line("for (int h = 0; h < 2; ++h) {");
    line("  #pragma unroll");
    line("  for (int j = 0; j < " + site + "::kKPerThread; ++j) {");
    indent_ += 2;
    line("const int i_" + rk + " = 2 * f + h;");
    line("const int c_" + rk + " = coord(i_" + rk + ", th_" + rk + ", T_" + rk + ", V_" + rk + ");");
    line("const int i_" + kk + " = ks * " + site + "::kKPerThread + j;");
    line("const int c_" + kk + " = coord(i_" + kk + ", th_" + kk + ", T_" + kk + ", V_" + kk + ");");
    line("ae[h][j] = " + inBounds(K) + " ? float(" + expr(a) + ") : 0.f;");
    indent_ -= 2;
    line("  }");
    line("}");
    line(site + "::pack_a(" + to + ", ae);");
  };
  // sm_90a: the warpgroups' wgmmas on the same registers (dot.cuh, MmaDot::wgmma),
  // the accumulators moved into and out of the wgmma register order.
  line("if constexpr (" + site + "::kWgmma) {");
  ++indent_;
  line("float wd[E_" + rk + " / 2][S_" + ck + " / 2];");
  auto wgmmaOrder = [&](bool in) {
    line("#pragma unroll");
    line("for (int f = 0; f < E_" + rk + " / 2; ++f)");
    line("  #pragma unroll");
    line("  for (int j = 0; j < E_" + ck + " / 2; ++j)");
    line("    #pragma unroll");
    line("    for (int h = 0; h < 2; ++h) {");
    const std::string w0 = "wd[f][4 * j + 2 * h]", w1 = "wd[f][4 * j + 2 * h + 1]";
    const std::string a0 = acc("2 * f + h", "2 * j"), a1 = acc("2 * f + h", "2 * j + 1");
    line("      " + (in ? w0 + " = " + a0 : a0 + " = " + w0) + ";");
    line("      " + (in ? w1 + " = " + a1 : a1 + " = " + w1) + ";");
    line("    }");
  };
  wgmmaOrder(true);
  if (p.registerA) {
    line("hd::uint32 afr[" + site + "::kKSteps][E_" + rk + " / 2][4];");
    line("#pragma unroll");
    line("for (int ks = 0; ks < " + site + "::kKSteps; ++ks) {");
    line("  #pragma unroll");
    line("  for (int f = 0; f < E_" + rk + " / 2; ++f) {");
    indent_ += 2;
    registerA("afr[ks][f]");
    indent_ -= 2;
    line("  }");
    line("}");
    line(site + "::wgmma(wd, " + buf + ", afr);");
  } else {
    line(site + "::wgmma(wd, " + buf + ");");
  }
  wgmmaOrder(false);
  --indent_;
  line("} else {");
  ++indent_;
  // Per k step: the A fragments of this warp's rows, then each B fragment once for all
  // of them.
  line("const int lane = threadIdx.x % 32;");
  if (!p.registerA)
    line("const int row8 = threadIdx.x / 32 * 8;");
  line("#pragma unroll");
  line("for (int ks = 0; ks < " + site + "::kKSteps; ++ks) {");
  ++indent_;
  line("hd::uint32 af[E_" + rk + " / 2][4];");
  line("#pragma unroll");
  line("for (int f = 0; f < E_" + rk + " / 2; ++f) {");
  ++indent_;
  if (p.registerA) {
    registerA("af[f]");
  } else {
    line(site + "::load_a(af[f], " + buf + ", 2 * f * T_" + rk + " + row8, (2 * f + 1) * T_" +
         rk + " + row8, ks, lane);");
  }
  --indent_;
  line("}");
  line("#pragma unroll");
  line("for (int np = 0; np < E_" + ck + " / 4; ++np) {");
  ++indent_;
  line("hd::uint32 bf[4];");
  line(site + "::load_b2(bf, " + buf + ", ks, np * 16, lane);");
  mma("4 * np", "bf[0]", "bf[1]");
  mma("4 * np + 2", "bf[2]", "bf[3]");
  --indent_;
  line("}");
  line("if constexpr (E_" + ck + " % 4 != 0) {");
  ++indent_;
  line("hd::uint32 bf[2];");
  line(site + "::load_b(bf, " + buf + ", ks, E_" + ck + " / 4 * 16, lane);");
  mma("E_" + ck + " - 2", "bf[0]", "bf[1]");
  --indent_;
  line("}");
  --indent_;
  line("}");
  --indent_;
  line("}");
}

} // namespace helion::codegen
