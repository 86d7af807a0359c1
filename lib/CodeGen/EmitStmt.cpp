//===- EmitStmt.cpp - Statements: loads, stores, reductions, loops ---------===//
#include "EmitterState.h"
#include "helion/Config/Sites.h"
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

std::vector<int> Emitter::storeAxes(const Stmt& s) const {
  return axesOf(BlockType{ElemType::concrete(ScalarType::F32), s.targetDims});
}

// A let over a reduction axis whose value is cheap elementwise arithmetic on
// other values is recomputed where it is used instead of held in a register
// array: `row = x[tm, :].to(f32)` then stays a half-width f16 array, and
// `centered = row - mean` costs a subtraction per use, not 40 live registers.
// Transcendentals used more than once stay materialized.
bool Emitter::inlinable(const Stmt& s) const {
  if (assignedVars_.count(s.var) || !s.value || !s.value->type)
    return false;
  bool overReduction = false;
  for (const Dim& d : s.value->type->dims)
    overReduction |= d.kind == Dim::Kind::Full;
  if (!overReduction)
    return false;
  bool cheap = true, ok = true;
  walkExpr(*s.value, [&](const Expr& e) {
    switch (e.kind) {
    case ExprKind::Const:
    case ExprKind::Param:
    case ExprKind::Var:
    case ExprKind::View:
    case ExprKind::Cast:
    case ExprKind::Where:
    case ExprKind::Binary: break;
    case ExprKind::Unary:
      if (e.unary != UnaryOp::Neg && e.unary != UnaryOp::Not && e.unary != UnaryOp::Abs)
        cheap = false;
      break;
    default: ok = false;
    }
    if (e.kind == ExprKind::Binary && (e.binary == BinaryOp::Div || e.binary == BinaryOp::Mod ||
                                        e.binary == BinaryOp::Pow))
      cheap = false;
  });
  if (!ok)
    return false;
  auto uses = varUses_.find(s.var);
  return cheap || (uses != varUses_.end() && uses->second <= 1);
}

int Emitter::loopedAxisOf(const std::vector<int>& axes) const {
  for (int a : axes)
    if (axes_[a].looped && !activeChunks_.count(a))
      return a;
  return -1;
}

// Byte-free element offset of a subscript: sum of coordinate * stride per tensor dim.
// `dims` are the subscript's dims in order (the load's type or the store's target).
std::string Emitter::tensorOffset(int param, const std::vector<Index>& ix, bool gatherAll,
                                  int innerOverride, const std::string& innerCoord) {
  const std::string& name = k_.params[param].name;
  std::string off;
  int tensorDim = 0;
  auto add = [&](const std::string& coord) {
    std::string term = coord + " * stride_" + name + "_" + std::to_string(tensorDim);
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
      return "int64" + coordOf(tileAxis_.at(i.tile));
    case Index::Kind::Tile:
      if (k_.tiles.at(i.tile).isGrid || !tileAxis_.count(i.tile))
        add("tb_t" + std::to_string(i.tile));
      else
        add(coordOf(tileAxis_.at(i.tile)));
      break;
    case Index::Kind::All: {
      // The axis of tensor dim `tensorDim` of this param.
      auto found = allAxisOf_.find({param, tensorDim});
      int axis = found == allAxisOf_.end() ? -1 : found->second;
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
  const Index& last = ix.back();
  if (last.kind == Index::Kind::All) {
    int tensorDims = 0;
    for (const Index& i : ix)
      tensorDims += i.kind != Index::Kind::NewAxis;
    auto found = allAxisOf_.find({param, tensorDims - 1});
    return found == allAxisOf_.end() ? -1 : found->second;
  }
  if ((last.kind == Index::Kind::Tile || last.kind == Index::Kind::Flat) && tileAxis_.count(last.tile))
    return tileAxis_.at(last.tile);
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
    if (s.kind == StmtKind::Let && (fusedLets_.count(&s) || hoistedLets_.count(&s)))
      continue; // computed by an earlier fused reduction / before the program loop
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
  if (declare && inlinable(s)) {
    inlined_[s.var] = &s; // recomputed at each use: no register array
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

// A variable that holds a load and is never reassigned keeps the tensor's own
// element type (half the registers for f16/bf16); uses convert it (Var in expr).
void Emitter::emitLoad(const Stmt& s, const Expr& load, bool declare) {
  const std::string& name = k_.params[load.param].name;
  bool storage = false;
  if (declare) {
    storage = !assignedVars_.count(s.var) && !load.gatherAll;
    if (storage) {
      std::vector<int> ax = axesOf(*load.type);
      varAxes_[s.var] = ax;
      storageVars_.insert(s.var);
      std::string decl = "T_" + name + " " + varName(s.var);
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
  std::string ct = computeType(load.type->elem);
  std::string dst = elementRef(varName(s.var), axes);
  // Converts a loaded element to what the variable holds.
  auto conv = [&](const std::string& v) { return storage ? v : "hd::to_compute(" + v + ")"; };
  std::string zero = storage ? "hd::from_compute<T_" + name + ">(" + ct + "(0))" : ct + "(0)";
  // Vectorize along the inner axis when the load's last subscript is that axis.
  int vec = -1;
  const Expr* userMask = loadMask(load); // hl::load(t, {...}, mask): masked-out lanes read 0
  if (!load.gatherAll && !userMask && !axes.empty() && axes_[axes[0]].inner &&
      !load.indices.empty()) {
    if (lastSubscriptAxis(load.param, load.indices) == axes[0])
      vec = axes[0];
  }
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
                ">(reinterpret_cast<const hvec<T_" + name + ", 1>*>(" + name + " + " + at + "), " +
                mask(-1) + ").v[0]") +
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
  const std::string vecType = "hvec<T_" + name + ", V_" + x + ">";
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
  const std::string& name = k_.params[s.param].name;
  auto maskWithout = [&](int skip) {
    std::string m;
    for (int a : axes)
      if (a != skip)
        m += (m.empty() ? "" : " && ") + inBounds(a);
    return m.empty() ? std::string("true") : m;
  };
  if (s.atomicAdd)
    return emitAtomicAdd(s, axes, maskWithout(-1));
  // Vector stores along the inner axis when the subscript's last dim is that axis.
  int vec = -1;
  if (!s.gatherAll && !s.mask && !axes.empty() && axes_[axes[0]].inner && !s.indices.empty()) {
    if (lastSubscriptAxis(s.param, s.indices) == axes[0])
      vec = axes[0];
  }
  openElementLoops(axes, vec);
  if (vec < 0) {
    std::string m = maskWithout(-1);
    if (s.mask)
      m += " && bool(" + expr(*s.mask) + ")";
    line("if (" + m + ") " + name + "[" + tensorOffset(s.param, s.indices, s.gatherAll) +
         "] = hd::from_compute<T_" + name + ">(" + expr(*s.value) + ");");
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
    line("hvec<T_" + name + ", V_" + x + "> h;");
    line("#pragma unroll");
    line("for (int v = 0; v < V_" + x + "; ++v) {");
    line("  const int i_" + x + " = g_" + x + " * V_" + x + " + v;");
    line("  const int c_" + x + " = c0_" + x + " + v;");
    line("  (void)i_" + x + "; (void)c_" + x + ";");
    line("  h.v[v] = hd::from_compute<T_" + name + ">(" + expr(*s.value) + ");");
    line("}");
    // Whole vectors only: VEC divides the extent (see emitLoad).
    line("if (" + maskWithout(vec) + " && (X_" + x + " || " + first + " < " +
         (la.isTile ? "te_t" + id : "ext_" + x) + "))");
    line("  *reinterpret_cast<hvec<T_" + name + ", V_" + x + ">*>(" + name + " + o_" + x + ") = h;");
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
  const std::string& name = k_.params[s.param].name;
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
    line("hd::compute_t<T_" + name + "> av[V_" + x + "];");
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
    line("  const hd::compute_t<T_" + name + "> v = " + expr(*s.value) + ";");
    // the copy's word: the tensor's type (float for f16/bf16)
    line("  if (use_priv_" + name + ") hd::atomic_add(&priv_" + name + "[" + offset +
         "], hd::private_acc_t<T_" + name + ">(v));");
    line("  else hd::atomic_add(&" + name + "[" + offset + "], hd::from_compute<T_" + name +
         ">(v));");
    line("}");
  } else {
    line("if (" + m + ") hd::atomic_add(&" + name + "[" + offset + "], hd::from_compute<T_" +
         name + ">(" + expr(*s.value) + "));");
  }
  closeElementLoops(axes);
  --indent_;
  line("}");
}

std::string Emitter::tileEnd(int t) {
  const TileVar& tv = k_.tiles.at(t);
  return tv.flatOfParam >= 0 ? "numel_" + k_.params[tv.flatOfParam].name : scalarExpr(*tv.end);
}

void Emitter::emitInnerLoop(const Stmt& s) {
  if (innerLoop_.empty()) // numbered as the spec numbers them (Sites.h)
    for (const config::LoopInfo& l : config::tileLoops(k_))
      if (!l.isGrid)
        innerLoop_.emplace(l.stmt, static_cast<int>(innerLoop_.size()));
  // range_unroll_factors: 0 leaves the choice to NVRTC, N unrolls the outermost tile
  // loop of this statement N times (1 keeps it rolled).
  auto found = innerLoop_.find(&s);
  int unroll = found != innerLoop_.end() &&
                       found->second < static_cast<int>(cfg_.rangeUnrollFactors.size())
                   ? cfg_.rangeUnrollFactors[found->second]
                   : 0;
  for (int t : s.tiles) {
    openInnerTiles_.insert(t);
    const TileVar& tv = k_.tiles.at(t);
    std::string n = "t" + std::to_string(t);
    std::string bs = std::to_string(tileBlockSize(t));
    line("const int64 end_" + n + " = " + tileEnd(t) + ";");
    if (unroll > 0 && t == s.tiles.front())
      line("#pragma unroll " + std::to_string(unroll));
    line("for (int64 tb_" + n + " = " + scalarExpr(*tv.begin) + "; tb_" + n + " < end_" + n +
         "; tb_" + n + " += " + bs + ") {");
    ++indent_;
    line("const int64 te_" + n + " = hd::minimum<int64>(tb_" + n + " + " + bs + ", end_" + n +
         ");");
  }
  stmts(s.body);
  for (size_t i = 0; i < s.tiles.size(); ++i) {
    --indent_;
    line("}");
  }
  for (int t : s.tiles)
    openInnerTiles_.erase(t);
}

} // namespace helion::codegen
