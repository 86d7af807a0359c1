//===- EmitAccess.cpp - Tensor addressing and loads -------------------------===//
//
// The element offset of a subscript (tensorOffset), which axis a subscript's last dim
// runs along (lastSubscriptAxis), and the `let` of a load: vectorized along the
// inner axis when its last subscript is that axis, with the site's eviction hint.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

namespace helion::codegen {

using namespace ir;

// Byte-free element offset of a subscript: sum of coordinate * stride per tensor dim.
// `dims` are the subscript's dims in order (the load's type or the store's target).
std::string Emitter::tensorOffset(int param, const std::vector<Index>& ix, bool gatherAll,
                                  int innerOverride, const std::string& innerCoord) {
  const std::string name = genName(k_.params[param]);
  std::string off;
  int tensorDim = 0;
  auto add = [&](const std::string& coord) {
    std::string term = coord + " * " + genStride(name, tensorDim);
    off += (off.empty() ? "" : " + ") + term;
    ++tensorDim;
  };
  std::function<std::string(int)> coordOf = [&](int axis) {
    return axis == innerOverride ? innerCoord : absCoord(axis);
  };
  for (size_t n = 0; n < ix.size(); ++n) {
    const Index& i = ix[n];
    switch (i.kind) {
    case Index::Kind::Flat:
      return "int64" + coordOf(layout_.tile(i.tile));
    case Index::Kind::Tile:
      if (k_.tiles.at(i.tile).isGrid || layout_.tile(i.tile) < 0)
        add("tb_t" + std::to_string(i.tile));
      else
        add(coordOf(layout_.tile(i.tile)));
      break;
    case Index::Kind::All: {
      // The axis of tensor dim `tensorDim` of this param.
      int axis = layout_.tensorDim(param, tensorDim);
      if (axis < 0) {
        error(k_.loc, "internal compiler error: no layout axis for " + name + ".size(" +
                          std::to_string(tensorDim) + ")");
        return "0";
      }
      add(coordOf(axis));
      break;
    }
    case Index::Kind::NewAxis: break;
    case Index::Kind::Scalar:
    case Index::Kind::Gather: add("int64(" + expr(*i.value) + ")"); break;
    }
  }
  (void)gatherAll;
  return off.empty() ? "0" : off;
}

int Emitter::lastSubscriptAxis(int param, const std::vector<Index>& ix) const {
  return layout_.lastSubscript(param, ix);
}

// A variable that holds a load and is never reassigned keeps the tensor's own
// element type (half the registers for f16/bf16); uses convert it (Var in expr).
void Emitter::emitLoad(const Stmt& s, const Expr& load, bool declare) {
  const std::string name = genName(k_.params[load.param]);
  bool storage = false;
  if (declare) {
    storage = !assignedVars_.count(s.var) && !load.gatherAll;
    if (storage) {
      std::vector<int> ax = axesOf(*load.type);
      varAxes_[s.var] = ax;
      storageVars_.insert(s.var);
      std::string decl = genType(name) + " " + varName(s.var);
      for (int a : ax)
        decl += "[E_" + axes_[a].key + "]";
      line(decl + ";");
    } else {
      declareVar(s.var, *load.type);
    }
  } else {
    storage = storageVars_.count(s.var) > 0;
  }
  const std::vector<int>& axes = varAxes_[s.var];
  // Vectorize along the inner axis when the load's last subscript is that axis.
  int vec = -1;
  const Expr* userMask = loadMask(load); // hl::load(t, {...}, mask): masked-out lanes read 0
  if (!load.gatherAll && !userMask && !axes.empty() && axes_[axes[0]].inner &&
      !load.indices.empty()) {
    if (lastSubscriptAxis(load.param, load.indices) == axes[0])
      vec = axes[0];
  }
  // An mma column axis holds pairs: loaded as pairs where VEC allows (the launcher's
  // VEC keeps them aligned), element by element otherwise.
  if (vec < 0 && !load.gatherAll && !userMask && !axes.empty() &&
      axes_[axes[0]].mma == MmaRole::Col && !load.indices.empty() &&
      lastSubscriptAxis(load.param, load.indices) == axes[0] &&
      std::find(staged_.begin(), staged_.end(), &s) == staged_.end()) {
    line("if constexpr (VEC >= 2) {");
    ++indent_;
    emitLoadElements(s, load, axes, axes[0], storage);
    --indent_;
    line("} else {");
    ++indent_;
    emitLoadElements(s, load, axes, -1, storage);
    --indent_;
    line("}");
    return;
  }
  emitLoadElements(s, load, axes, vec, storage);
}

/// The element loops of a load's let: vectors along axis `vec`, or element by element.
void Emitter::emitLoadElements(const Stmt& s, const Expr& load, const std::vector<int>& axes,
                               int vec, bool storage) {
  const std::string name = genName(k_.params[load.param]);
  std::string ct = computeType(load.type->elem);
  std::string dst = elementRef(varName(s.var), axes);
  // Converts a loaded element to what the variable holds.
  auto conv = [&](const std::string& v) { return storage ? v : "hd::to_compute(" + v + ")"; };
  std::string zero =
      storage ? "hd::from_compute<" + genType(name) + ">(" + ct + "(0))" : ct + "(0)";
  const Expr* userMask = loadMask(load); // hl::load(t, {...}, mask): masked-out lanes read 0
  auto mask = [&](int skip) {
    std::string m;
    for (int a : axes)
      if (a != skip)
        m += (m.empty() ? "" : " && ") + inBounds(a);
    if (userMask)
      m += (m.empty() ? "" : " && ") + std::string("bool(") + expr(*userMask) + ")";
    return m.empty() ? std::string("true") : m;
  };
  if (vec < 0) {
    openElementLoops(axes, vec);
    const std::string at = tensorOffset(load.param, load.indices, load.gatherAll);
    const std::string evict = load.gatherAll ? "" : evictionOf(load);
    if (evict.empty()) {
      line(dst + " = " + mask(-1) + " ? " + conv(name + "[" + at + "]") + " : " + zero + ";");
    } else { // one element, with the site's eviction hint (a vector of one)
      line(dst + " = " +
           conv("load_hint<" + evict + ", " + (storedParams_.count(load.param) ? "false" : "true") +
                ">(reinterpret_cast<const hvec<" + genType(name) + ", 1>*>(" + name + " + " + at +
                "), " + mask(-1) + ").v[0]") +
           ";");
    }
    closeElementLoops(axes);
    return;
  }
  const std::string& x = axes_[vec].key;
  const std::string first = axes_[vec].isTile
                                ? "tb_t" + std::to_string(axes_[vec].id) + " + c0_" + x
                                : "off_" + x + " + c0_" + x;
  const std::string end =
      axes_[vec].isTile ? "te_t" + std::to_string(axes_[vec].id) : "ext_" + x;
  const std::string base = tensorOffset(load.param, load.indices, false, vec, "(" + first + ")");
  const std::string vecType = "hvec<" + genType(name) + ", V_" + x + ">";
  // The launcher picks VEC so that it divides the inner extent (and tiles on
  // this axis start at multiples of it): a vector is wholly inside or wholly
  // outside, so one predicated 16-byte access per vector and no scalar edge
  // (an edge path per vector costs ptxas 3x the registers).
  openElementLoops(axes, vec);
  line("const int c0_" + x + " = coord(g_" + x + " * V_" + x + ", th_" + x + ", T_" + x + ", V_" +
       x + ");");
  const std::string pred = mask(vec) + " && (X_" + x + " || " + first + " < " + end + ")";
  const std::string evict = evictionOf(load);
  const std::string global =
      evict.empty() ? pred + " ? *reinterpret_cast<const " + vecType + "*>(" + name + " + " + base +
                          ") : " + vecType + "{}"
                    : "load_hint<" + evict + ", " +
                          (storedParams_.count(load.param) ? "false" : "true") +
                          ">(reinterpret_cast<const " + vecType + "*>(" + name + " + " + base +
                          "), " + pred + ")";
  auto stagedAt = std::find(staged_.begin(), staged_.end(), &s);
  if (stagedAt == staged_.end()) {
    line("const " + vecType + " h = " + global + ";");
  } else { // copied into shared memory a tile ago (EmitStaging.cpp)
    line(vecType + " h;");
    line("if constexpr (STAGED) h = stage" + std::to_string(stagedAt - staged_.begin()) +
         "[stage_slot][" + stagedSlot(s) + "][threadIdx.x];");
    line("else h = " + global + ";");
  }
  line("#pragma unroll");
  line("for (int v = 0; v < V_" + x + "; ++v) {");
  line("  const int i_" + x + " = g_" + x + " * V_" + x + " + v;");
  line("  " + dst + " = " + conv("h.v[v]") + ";");
  line("}");
  closeElementLoops(axes);
}

} // namespace helion::codegen
