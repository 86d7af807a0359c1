//===- Layout.cpp - How a kernel's values spread over the CTA's threads --===//
//
// planLayout gives every tile and reduction axis a share of the threads (the mma
// layout's axes first, MmaLayout.cpp); emitLayoutConstants prints each axis's
// S_, ST_, V_, T_, E_, th_ and X_ constants at the top of the kernel.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"
#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;
// Layout: every tile and reduction axis gets a share of the CTA's threads. Axes
// that index a tensor's last dim (the contiguous one in the row-major case) come
// first, so neighbouring threads hold neighbouring elements and vectors are 16
// bytes. Two axes need distinct threads only when some value spans both; axes
// that never meet (the tiles of two sibling loops over the same dim) share the
// innermost threads instead of dividing them.
void Emitter::planLayout() {
  using Key = std::pair<bool, int>; // (isTile, id)
  std::vector<Key> order;           // in order of first appearance
  std::vector<Key> innerCandidates; // last subscripts of loads/stores, in order
  std::set<std::pair<Key, Key>> meet;
  auto keyOf = [&](const Dim& d) -> std::optional<Key> {
    if (d.kind == Dim::Kind::Tile && !k_.tiles.at(d.tile).isGrid)
      return Key{true, d.tile};
    if (d.kind == Dim::Kind::Full)
      return Key{false, d.axis};
    return std::nullopt;
  };
  auto note = [&](Key key) {
    if (std::find(order.begin(), order.end(), key) == order.end())
      order.push_back(key);
  };
  auto noteType = [&](const BlockType& type) {
    std::vector<Key> keys;
    for (const Dim& d : type.dims)
      if (auto key = keyOf(d)) {
        note(*key);
        keys.push_back(*key);
      }
    for (const Key& a : keys)
      for (const Key& b : keys)
        if (a != b)
          meet.insert({a, b});
  };
  auto seeExpr = [&](const Expr& root) {
    walkExpr(root, [&](const Expr& e) {
      if (stagedOperands_.count(&e)) // copied by its dot: not held, nor what it reads
        return false;
      if (e.type)
        noteType(*e.type);
      return true;
    });
  };
  auto noteInner = [&](const std::vector<Index>& ix, const BlockType& type) {
    if (ix.empty())
      return;
    // The last tensor subscript: its dim is the last non-One dim of the value.
    const Index& last = ix.back();
    std::optional<Key> key;
    if (last.kind == Index::Kind::Tile || last.kind == Index::Kind::Flat) {
      if (!k_.tiles.at(last.tile).isGrid)
        key = Key{true, last.tile};
    } else if (last.kind == Index::Kind::All) {
      for (auto it = type.dims.rbegin(); it != type.dims.rend(); ++it)
        if (it->kind == Dim::Kind::Full) {
          key = Key{false, it->axis};
          break;
        }
    }
    if (key && std::find(innerCandidates.begin(), innerCandidates.end(), *key) ==
                   innerCandidates.end())
      innerCandidates.push_back(*key);
  };
  planMmaLayout();
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::For) {
      for (int t : s.tiles)
        if (!k_.tiles.at(t).isGrid)
          note({true, t});
      return;
    }
    if (dotOperandLets_.count(&s)) { // copied into shared memory by its dot: no layout
      for (const Dim& d : s.value->type->dims)
        if (auto key = keyOf(d))
          note(*key);
      return;
    }
    if (s.value)
      seeExpr(*s.value);
    const BlockType* type = s.value && s.value->type ? &*s.value->type : nullptr;
    if (s.kind == StmtKind::Store && !s.gatherAll && type) {
      BlockType target = *type;
      target.dims = s.targetDims.empty() ? type->dims : s.targetDims;
      noteType(target);
      noteInner(s.indices, target);
    } else if (s.kind == StmtKind::Let && s.value->kind == ExprKind::Load &&
               !s.value->gatherAll && type) {
      noteInner(s.value->indices, *type);
    }
  });

  // Inner axes first: the largest candidates win (a reduction axis over a tile of
  // one row); a candidate that meets a chosen one is not inner.
  auto extentGuess = [&](const Key& k) -> int64_t {
    if (k.first)
      return tileBlockSize(k.second);
    const Axis& axis = k_.axes.at(k.second);
    return axis.looped() ? axis.loopChunk : int64_t(1) << 40; // a chunk, or a whole dim
  };
  std::stable_sort(innerCandidates.begin(), innerCandidates.end(),
                   [&](const Key& a, const Key& b) { return extentGuess(a) > extentGuess(b); });
  std::vector<Key> inner;
  for (const Key& c : innerCandidates)
    if (std::none_of(inner.begin(), inner.end(), [&](const Key& i) { return meet.count({i, c}); }))
      inner.push_back(c);
  std::vector<Key> sorted = inner;
  for (const Key& k : order)
    if (std::find(sorted.begin(), sorted.end(), k) == sorted.end())
      sorted.push_back(k);
  if (mmaLayout_) { // the mma axes take the low thread bits: columns, then rows
    auto rank = [&](const Key& k) {
      auto it = mmaRole_.find(k);
      return it == mmaRole_.end() ? 2 : it->second == MmaRole::Col ? 0 : 1;
    };
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const Key& a, const Key& b) { return rank(a) < rank(b); });
    inner.clear(); // an mma column's vector is its pair (V = 2), rows have none
  }

  for (auto [isTile, id] : sorted) {
    LayoutAxis a;
    a.isTile = isTile;
    a.id = id;
    a.key = (isTile ? "t" : "a") + std::to_string(id);
    if (isTile) {
      a.size = std::to_string(tileBlockSize(id));
    } else {
      if (k_.axes.at(id).looped()) {
        a.looped = true;
        a.size = std::to_string(k_.axes.at(id).loopChunk);
      } else {
        a.size = "RDIM" + std::to_string(id);
        out_.templateArgs.push_back({TemplateArg::Kind::ReductionDim, id});
      }
    }
    a.inner = std::find(inner.begin(), inner.end(), Key{isTile, id}) != inner.end();
    if (auto role = mmaRole_.find(Key{isTile, id}); role != mmaRole_.end())
      a.mma = role->second;
    // Vectors must start at multiples of VEC: only tiles that begin at 0.
    if (isTile && a.inner) {
      const Expr& begin = *k_.tiles.at(id).begin;
      a.inner = begin.kind == ExprKind::Const && begin.value == 0;
    }
    // Threads go past every earlier axis this one meets.
    for (size_t j = 0; j < axes_.size(); ++j)
      if (meet.count({Key{axes_[j].isTile, axes_[j].id}, Key{isTile, id}}))
        a.after.push_back(static_cast<int>(j));
    (isTile ? tileAxis_ : fullAxis_)[id] = static_cast<int>(axes_.size());
    if (!isTile)
      for (auto pd : k_.axes.at(id).tensorDims)
        allAxisOf_[pd] = static_cast<int>(axes_.size());
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
    line("constexpr int V_" + x + " = " +
         (a.inner ? "axis_vec(VEC, S_" + x + ", NT / ST_" + x + " > 0 ? NT / ST_" + x + " : 1)"
                  : "1") +
         ";");
    // A reduction axis that later axes (rows of the same program) go past leaves them
    // threads: at most NT / (their sizes) threads, at least a warp, so that a program of
    // several short rows reduces them side by side rather than one after another over
    // all its threads.
    std::string rows;
    const int self = static_cast<int>(&a - axes_.data());
    for (size_t k = self + 1; k < axes_.size(); ++k)
      if (axes_[k].size != "1" &&
          std::find(axes_[k].after.begin(), axes_[k].after.end(), self) != axes_[k].after.end())
        rows += (rows.empty() ? "" : " * ") + axes_[k].size; // S_ of a later axis
    std::string threads = "hmin(NT / ST_" + x + " > 0 ? NT / ST_" + x + " : 1, S_" + x + " / V_" +
                          x + ")";
    if (!a.isTile && !a.looped && !rows.empty())
      threads = "hmin(" + threads + ", hmax(32, NT / (ST_" + x + " * " + rows + ")))";
    line("constexpr int T_" + x + " = " + threads + ";");
    line("constexpr int E_" + x + " = S_" + x + " / T_" + x + ";");
    line("const int th_" + x + " = (threadIdx.x / ST_" + x + ") % T_" + x + ";");
    line("constexpr bool X_" + x + " = (EXACT >> " + std::to_string(&a - axes_.data()) +
         ") & 1; // no bounds checks needed");
    if (!a.isTile)
      line("const int64 ext_" + x + " = " + axisExtent(static_cast<int>(&a - axes_.data())) + ";");
    if (!a.isTile && !a.looped)
      line("const int64 off_" + x + " = 0;");
  }
  // Two buffers for axis_reduce, used alternately (one barrier per reduction).
  line("__shared__ double smem_raw[2][NT];");
  line("int red_phase = 0;");
}

} // namespace helion::codegen
