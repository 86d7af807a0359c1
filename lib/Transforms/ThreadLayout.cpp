//===- ThreadLayout.cpp - How a kernel's values spread over the CTA's threads ===//
//
// For a kernel the generic emitter prints (ir::dotTemplate: no template), gives every
// tile of its loops (not an hl::grid one) and every reduction axis that values span a
// place in the CTA's thread layout (Kernel::threadLayout), innermost first:
//   - axes that index a tensor's last dim (the contiguous one in the row-major case)
//     come first and are `inner`, so that neighbouring threads hold neighbouring
//     elements and vectors are 16 bytes; of those candidates the largest win (a
//     reduction axis over a tile of one row), and one that meets a chosen one is not
//     (nor is a tile that does not begin at 0). The others follow as they appear;
//   - two axes need distinct threads only when some value spans both: a later axis goes
//     `after` the earlier ones it meets. Axes that never meet (the tiles of two sibling
//     loops over the same dim) share the innermost threads instead of dividing them;
//   - under the mma layout (the mma-layout pass) its column tiles, then its row tiles,
//     take the lowest thread bits, and no axis is vectorized (a column's pair of
//     accumulators is its vector).
// The emitter turns each axis into its S_, ST_, V_, T_ and E_ constants (Layout.cpp).
//
//   thread_layout: a0 inner | t0(tm) after [a0]                          // softmax
//   thread_layout: t1(tn) mma cols | t0(tm) mma rows after [t1] | ...   // a general dot
//===----------------------------------------------------------------------===//
#include "helion/IR/DotShape.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"

#include <algorithm>
#include <set>

namespace helion::ir {
namespace {

using Key = std::pair<bool, int>; // (isTile, tile or axis id)

class Planner {
public:
  explicit Planner(const Kernel& k) : k_(k) {}

  std::vector<ThreadAxis> run() {
    noteMma();
    walkStmts(k_.body, [&](const Stmt& s) { see(s); });
    std::vector<Key> inner = chooseInner();
    std::vector<Key> sorted = inner;
    for (const Key& k : order_)
      if (std::find(sorted.begin(), sorted.end(), k) == sorted.end())
        sorted.push_back(k);
    if (mmaLayout_) { // the mma axes take the low thread bits: columns, then rows
      auto rank = [&](const Key& k) {
        const MmaRole role = k.first ? k_.tiles.at(k.second).mma : MmaRole::None;
        return role == MmaRole::Col ? 0 : role == MmaRole::Row ? 1 : 2;
      };
      std::stable_sort(sorted.begin(), sorted.end(),
                       [&](const Key& a, const Key& b) { return rank(a) < rank(b); });
      inner.clear(); // an mma column's vector is its pair (V = 2), rows have none
    }
    std::vector<ThreadAxis> layout;
    for (const Key& key : sorted) {
      ThreadAxis a;
      a.isTile = key.first;
      a.id = key.second;
      a.inner = std::find(inner.begin(), inner.end(), key) != inner.end();
      // Vectors must start at multiples of VEC: only tiles that begin at 0.
      if (a.isTile && a.inner) {
        const Expr& begin = *k_.tiles.at(a.id).begin;
        a.inner = begin.kind == ExprKind::Const && begin.value == 0;
      }
      for (size_t j = 0; j < layout.size(); ++j)
        if (meet_.count({sorted[j], key}))
          a.after.push_back(static_cast<int>(j));
      layout.push_back(std::move(a));
    }
    return layout;
  }

private:
  /// The dots under the mma layout, and their operands that all threads copy into
  /// shared memory: those are not held, so they (and the loads they read) span nothing.
  void noteMma() {
    walkStmts(k_.body, [&](const Stmt& s) {
      if ((s.kind != StmtKind::Let && s.kind != StmtKind::Assign) || !s.value ||
          s.value->kind != ExprKind::Dot || !s.value->mma)
        return;
      mmaLayout_ = true;
      const Expr& d = *s.value;
      if (d.mma->a == MmaDotInfo::Operand::Copied)
        copied_.insert(d.operands[0].get());
      if (d.mma->b == MmaDotInfo::Operand::Copied)
        copied_.insert(d.operands[1].get());
    });
  }

  std::optional<Key> keyOf(const Dim& d) const {
    if (d.kind == Dim::Kind::Tile && !k_.tiles.at(d.tile).isGrid)
      return Key{true, d.tile};
    if (d.kind == Dim::Kind::Full)
      return Key{false, d.axis};
    return std::nullopt;
  }

  void note(const Key& key) { // axes in order of first appearance
    if (std::find(order_.begin(), order_.end(), key) == order_.end())
      order_.push_back(key);
  }

  /// A value of `type` is held: its axes appear, and meet each other.
  void noteType(const BlockType& type) {
    std::vector<Key> keys;
    for (const Dim& d : type.dims)
      if (auto key = keyOf(d)) {
        note(*key);
        keys.push_back(*key);
      }
    for (const Key& a : keys)
      for (const Key& b : keys)
        if (a != b)
          meet_.insert({a, b});
  }

  /// The axis of the last tensor subscript of a load or store, an inner candidate:
  /// its dim is the last non-One dim of the value.
  void noteInner(const std::vector<Index>& ix, const BlockType& type) {
    if (ix.empty())
      return;
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
    if (key && std::find(candidates_.begin(), candidates_.end(), *key) == candidates_.end())
      candidates_.push_back(*key);
  }

  void see(const Stmt& s) {
    if (s.kind == StmtKind::For) {
      for (int t : s.tiles)
        if (!k_.tiles.at(t).isGrid)
          note({true, t});
      return;
    }
    if (s.dotCopied) { // copied into shared memory by its dot: no layout, nothing met
      for (const Dim& d : s.value->type->dims)
        if (auto key = keyOf(d))
          note(*key);
      return;
    }
    if (s.value)
      walkExpr(*s.value, [&](const Expr& e) {
        if (copied_.count(&e))
          return false;
        if (e.type)
          noteType(*e.type);
        return true;
      });
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
  }

  /// The inner axes: the candidates, largest first (a tile by its block size, a looped
  /// reduction axis by its chunk, a persistent one as a whole dim), skipping any that
  /// meets one already chosen.
  std::vector<Key> chooseInner() const {
    auto extentGuess = [&](const Key& k) -> int64_t {
      if (k.first) {
        const TileVar& t = k_.tiles.at(k.second);
        return t.isGrid ? 1 : k_.blockSizes.at(t.blockSize).chosen.value_or(1);
      }
      const Axis& axis = k_.axes.at(k.second);
      return axis.looped() ? axis.loopChunk : int64_t(1) << 40;
    };
    std::vector<Key> candidates = candidates_;
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const Key& a, const Key& b) { return extentGuess(a) > extentGuess(b); });
    std::vector<Key> inner;
    for (const Key& c : candidates)
      if (std::none_of(inner.begin(), inner.end(),
                       [&](const Key& i) { return meet_.count({i, c}) > 0; }))
        inner.push_back(c);
    return inner;
  }

  const Kernel& k_;
  std::vector<Key> order_;      ///< every axis values span, in order of first appearance
  std::vector<Key> candidates_; ///< last subscripts of loads and stores, in order
  std::set<std::pair<Key, Key>> meet_;
  std::set<const Expr*> copied_;
  bool mmaLayout_ = false;
};

} // namespace

Kernel threadLayout(const Kernel& kernel, PassContext&) {
  // A template kernel lays out its threads itself: no layout to decide or print.
  if (dotTemplate(kernel) != DotTemplate::None)
    return kernel;
  Kernel out = kernel;
  out.threadLayout = Planner(kernel).run();
  return out;
}

} // namespace helion::ir
