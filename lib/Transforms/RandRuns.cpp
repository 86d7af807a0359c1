//===- RandRuns.cpp - hl::rand offsets that step by one along a vector run ---===//
//
// A thread holds V neighbouring elements of a vectorized (inner) tile axis. When the
// offsets of an `hl::rand` step by exactly one along that tile (`row * n + tn.index()`,
// a dropout mask), the thread's V numbers are the words of consecutive Philox blocks:
// the pass marks the rand (Expr::randRunTile) and the emitter evaluates them as a run
// (hd::RandStream::uniform_run), one Philox per four elements with no per-element
// block compare or word select. The analysis: the offsets' coefficient along the tile,
// through lets, views, widening casts, + and -, and products with integer constants;
// any value without that tile among its dims has coefficient 0.
//
//   let %u.2 : f32[tm, tn] = rand(%seed, %offsets.0) run %tn
//===----------------------------------------------------------------------===//
#include "helion/IR/DotShape.h"
#include "helion/IR/Mutator.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace helion::ir {
namespace {

class RandRuns : public IRMutator {
public:
  explicit RandRuns(const Kernel& k) : k_(k) {
    std::map<int, int> lets;
    walkStmts(k.body, [&](const Stmt& s) {
      if (s.kind == StmtKind::Assign)
        assigned_.insert(s.var);
      if (s.kind == StmtKind::Let && s.value) {
        ++lets[s.var];
        defs_[s.var] = s.value.get();
      }
    });
    for (const auto& [var, count] : lets)
      if (count > 1)
        assigned_.insert(var);
  }

  using IRMutator::mutate;
  ExprRef mutate(const ExprRef& e) override {
    ExprRef n = IRMutator::mutate(e);
    if (n->kind != ExprKind::Rand)
      return n;
    const int tile = runTile(*n);
    if (tile == n->randRunTile)
      return n;
    auto marked = std::make_shared<Expr>(*n);
    marked->randRunTile = tile;
    return marked;
  }

private:
  const Kernel& k_;
  std::set<int> assigned_;
  std::map<int, const Expr*> defs_;

  /// The vectorized tile of the layout, among the rand's dims, along which its offsets
  /// step by one; -1 if none.
  int runTile(const Expr& rand) const {
    if (!k_.threadLayout || !rand.type || rand.operands.size() != 2)
      return -1;
    for (const ThreadAxis& a : *k_.threadLayout) {
      if (!a.isTile || !a.inner || k_.tiles.at(a.id).flatOfParam >= 0 || !hasTile(rand, a.id))
        continue;
      if (coefficient(*rand.operands[1], a.id, 0) == std::optional<int64_t>(1))
        return a.id;
    }
    return -1;
  }

  static bool hasTile(const Expr& e, int tile) {
    if (!e.type)
      return true; // unknown: assume it varies
    for (const Dim& d : e.type->dims)
      if (d.kind == Dim::Kind::Tile && d.tile == tile)
        return true;
    return false;
  }

  static bool isIntType(const Expr& e) {
    if (!e.type || !e.type->elem.isConcrete())
      return false;
    const ScalarType t = e.type->elem.scalar();
    return t == ScalarType::I64 || t == ScalarType::I32;
  }

  /// d(e)/d(tile index) when it is a constant, else nullopt.
  std::optional<int64_t> coefficient(const Expr& e, int tile, int depth) const {
    if (depth > 64)
      return std::nullopt;
    if (!hasTile(e, tile))
      return 0;
    switch (e.kind) {
    case ExprKind::TileIndex:
      return e.tile == tile ? std::optional<int64_t>(1) : std::nullopt;
    case ExprKind::Var: {
      auto def = defs_.find(e.var);
      if (def == defs_.end() || assigned_.count(e.var))
        return std::nullopt;
      return coefficient(*def->second, tile, depth + 1);
    }
    case ExprKind::View:
      for (const Index& i : e.indices)
        if (i.kind != Index::Kind::All && i.kind != Index::Kind::NewAxis)
          return std::nullopt;
      return coefficient(*e.operands.at(0), tile, depth + 1);
    case ExprKind::Cast: // widening to int64 keeps the value
      if (e.castTo == ScalarType::I64 && isIntType(*e.operands.at(0)))
        return coefficient(*e.operands.at(0), tile, depth + 1);
      return std::nullopt;
    case ExprKind::Binary: {
      if (!isIntType(e))
        return std::nullopt;
      auto a = coefficient(*e.operands.at(0), tile, depth + 1);
      auto b = coefficient(*e.operands.at(1), tile, depth + 1);
      if (!a || !b)
        return std::nullopt;
      if (e.binary == BinaryOp::Add)
        return *a + *b;
      if (e.binary == BinaryOp::Sub)
        return *a - *b;
      if (e.binary == BinaryOp::Mul) {
        auto constant = [](const Expr& c) -> std::optional<int64_t> {
          if (c.kind == ExprKind::Const && c.isInt)
            return static_cast<int64_t>(c.value);
          return std::nullopt;
        };
        if (*a == 0 && *b == 0)
          return 0;
        if (*a == 0)
          if (auto c = constant(*e.operands[0]))
            return *c * *b;
        if (*b == 0)
          if (auto c = constant(*e.operands[1]))
            return *a * *c;
      }
      return std::nullopt;
    }
    default: return std::nullopt;
    }
  }
};

} // namespace

Kernel randRuns(const Kernel& kernel, PassContext&) {
  if (dotTemplate(kernel) != DotTemplate::None || !kernel.threadLayout)
    return kernel;
  return RandRuns(kernel).mutateKernel(kernel);
}

} // namespace helion::ir
