//===- EmitStore.cpp - Stores and atomic adds -------------------------------===//
//
// A store writes the value's elements into the tensor: vectorized along the inner
// axis when its last subscript is that axis, element by element otherwise. An
// hl::atomic_add adds them, one thread per element, or a vector per thread along the
// inner axis; a privatized one (privatize-atomics) into the program's shared copy.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

namespace helion::codegen {

using namespace ir;

/// The bounds checks of `axes` but `skip` joined by &&, or `true`.
std::string Emitter::boundsWithout(const std::vector<int>& axes, int skip) const {
  std::string m;
  for (int a : axes)
    if (a != skip)
      m += (m.empty() ? "" : " && ") + inBounds(a);
  return m.empty() ? std::string("true") : m;
}

std::vector<int> Emitter::storeAxes(const Stmt& s) const {
  return axesOf(BlockType{ElemType::concrete(ScalarType::F32), s.targetDims});
}

void Emitter::emitStore(const Stmt& s) {
  std::vector<int> axes = storeAxes(s);
  int looped = loopedAxisOf(axes);
  if (looped >= 0) {
    const std::string& x = axes_[looped].key;
    line("for (int64 off_" + x + " = 0; off_" + x + " < ext_" + x + "; off_" + x + " += S_" + x +
         ") {");
    ++indent_;
    activeChunks_.insert(looped);
    std::set<int> emitted;
    emitDeferredFor(*s.value, emitted);
    if (s.mask)
      emitDeferredFor(*s.mask, emitted);
    emitStore(s);
    activeChunks_.erase(looped);
    --indent_;
    line("}");
    return;
  }
  if (s.atomicAdd)
    return emitAtomicAdd(s, axes, boundsWithout(axes, -1));
  // Vector stores along the inner axis when the subscript's last dim is that axis.
  int vec = -1;
  if (!s.gatherAll && !s.mask && !axes.empty() && axes_[axes[0]].inner && !s.indices.empty()) {
    if (lastSubscriptAxis(s.param, s.indices) == axes[0])
      vec = axes[0];
  }
  // An mma column axis holds pairs: stored as pairs where VEC allows (the launcher's
  // VEC keeps them aligned), element by element otherwise.
  if (vec < 0 && !s.gatherAll && !s.mask && !axes.empty() &&
      axes_[axes[0]].mma == MmaRole::Col && !s.indices.empty() &&
      lastSubscriptAxis(s.param, s.indices) == axes[0]) {
    line("if constexpr (VEC >= 2) {");
    ++indent_;
    emitStoreElements(s, axes, axes[0]);
    --indent_;
    line("} else {");
    ++indent_;
    emitStoreElements(s, axes, -1);
    --indent_;
    line("}");
    return;
  }
  emitStoreElements(s, axes, vec);
}

/// The element loops of a store: vectors along axis `vec`, or element by element (-1).
void Emitter::emitStoreElements(const Stmt& s, const std::vector<int>& axes, int vec) {
  const std::string name = genName(k_.params[s.param]);
  auto maskWithout = [&](int skip) { return boundsWithout(axes, skip); };
  openElementLoops(axes, vec);
  if (vec < 0) {
    std::string m = maskWithout(-1);
    if (s.mask)
      m += " && bool(" + expr(*s.mask) + ")";
    line("if (" + m + ") " + name + "[" + tensorOffset(s.param, s.indices, s.gatherAll) +
         "] = hd::from_compute<" + genType(name) + ">(" + expr(*s.value) + ");");
  } else {
    const LayoutAxis& la = axes_[vec];
    const std::string& x = la.key;
    std::string id = std::to_string(la.id);
    line("const int c0_" + x + " = coord(g_" + x + " * V_" + x + ", th_" + x + ", T_" + x + ", V_" +
         x + ");");
    std::string first = la.isTile ? "(tb_t" + id + " + c0_" + x + ")" : "(off_" + x + " + c0_" + x + ")";
    std::string full = la.isTile ? "tb_t" + id + " + c0_" + x + " + V_" + x + " <= te_t" + id
                                 : "off_" + x + " + c0_" + x + " + V_" + x + " <= ext_" + x;
    line("const int64 o_" + x + " = " + tensorOffset(s.param, s.indices, false, vec, first) + ";");
    line("hvec<" + genType(name) + ", V_" + x + "> h;");
    line("#pragma unroll");
    line("for (int v = 0; v < V_" + x + "; ++v) {");
    line("  const int i_" + x + " = g_" + x + " * V_" + x + " + v;");
    line("  const int c_" + x + " = c0_" + x + " + v;");
    line("  (void)i_" + x + "; (void)c_" + x + ";");
    line("  h.v[v] = hd::from_compute<" + genType(name) + ">(" + expr(*s.value) + ");");
    line("}");
    // Whole vectors only: VEC divides the extent (see emitLoad).
    line("if (" + maskWithout(vec) + " && (X_" + x + " || " + first + " < " +
         (la.isTile ? "te_t" + id : "ext_" + x) + "))");
    line("  *reinterpret_cast<hvec<" + genType(name) + ", V_" + x + ">*>(" + name + " + o_" + x +
         ") = h;");
    (void)full;
  }
  closeElementLoops(axes);
}

/// Whether the last subscript of store `s` runs along `axis` with unit steps: the
/// axis's tile, or (hl::atomic_add(t, {blocks}, v)) that tile's index block.
bool Emitter::lastSubscriptIsAxis(const Stmt& s, int axis) const {
  if (s.indices.empty())
    return false;
  if (!s.gatherAll)
    return lastSubscriptAxis(s.param, s.indices) == axis;
  const Expr* e = s.indices.back().value.get();
  while (e && e->kind == ExprKind::View)
    e = e->operands[0].get();
  return e && e->kind == ExprKind::TileIndex && axes_[axis].isTile && e->tile == axes_[axis].id;
}

/// hl::atomic_add: one thread per element adds (threads that hold a copy of a
/// broadcast value, or replicate the layout, stay out). Along the inner axis, when the
/// target's last subscript is that axis, a thread's vector of V_x elements is one
/// hd::atomic_add_vec (vector reductions on sm_90; the launcher's VEC keeps it aligned).
void Emitter::emitAtomicAdd(const Stmt& s, const std::vector<int>& axes, std::string m) {
  const std::string name = genName(k_.params[s.param]);
  std::string owner;
  for (int a : axes)
    owner += (owner.empty() ? "" : " + ") + ("th_" + axes_[a].key + " * ST_" + axes_[a].key);
  line("if (int(threadIdx.x) == " + (owner.empty() ? std::string("0") : owner) + ") {");
  ++indent_;
  if (!s.privateAtomic && !s.mask && !axes.empty() && axes_[axes[0]].inner &&
      lastSubscriptIsAxis(s, axes[0])) {
    const int vec = axes[0];
    const std::string& x = axes_[vec].key;
    openElementLoops(axes, vec);
    line("const int c0_" + x + " = coord(g_" + x + " * V_" + x + ", th_" + x + ", T_" + x +
         ", V_" + x + ");");
    line("int64 o_" + x + ";");
    line("bool in_" + x + ";");
    line("{ // the vector's first element: its offset and bounds (vectors are whole)");
    line("  const int i_" + x + " = g_" + x + " * V_" + x + ";");
    line("  const int c_" + x + " = c0_" + x + ";");
    line("  (void)i_" + x + ";");
    line("  o_" + x + " = " + tensorOffset(s.param, s.indices, s.gatherAll) + ";");
    line("  in_" + x + " = " + m + ";");
    line("}");
    line("hd::compute_t<" + genType(name) + "> av[V_" + x + "];");
    line("#pragma unroll");
    line("for (int v = 0; v < V_" + x + "; ++v) {");
    line("  const int i_" + x + " = g_" + x + " * V_" + x + " + v;");
    line("  const int c_" + x + " = c0_" + x + " + v;");
    line("  (void)i_" + x + "; (void)c_" + x + ";");
    line("  av[v] = " + expr(*s.value) + ";");
    line("}");
    line("if (in_" + x + ") hd::atomic_add_vec<V_" + x + ">(" + name + " + o_" + x + ", av);");
    closeElementLoops(axes);
    --indent_;
    line("}");
    return;
  }
  openElementLoops(axes);
  if (s.mask)
    m += " && bool(" + expr(*s.mask) + ")";
  const std::string offset = tensorOffset(s.param, s.indices, s.gatherAll);
  if (s.privateAtomic) { // into this program's copy when the tensor fits (EmitPrivateAtomics.cpp)
    line("if (" + m + ") {");
    line("  const hd::compute_t<" + genType(name) + "> v = " + expr(*s.value) + ";");
    // the copy's word: the tensor's type (float for f16/bf16)
    line("  if (use_priv_" + name + ") hd::atomic_add(&priv_" + name + "[" + offset +
         "], hd::private_acc_t<" + genType(name) + ">(v));");
    line("  else hd::atomic_add(&" + name + "[" + offset + "], hd::from_compute<" + genType(name) +
         ">(v));");
    line("}");
  } else {
    line("if (" + m + ") hd::atomic_add(&" + name + "[" + offset + "], hd::from_compute<" +
         genType(name) + ">(" + expr(*s.value) + "));");
  }
  closeElementLoops(axes);
  --indent_;
  line("}");
}

} // namespace helion::codegen
