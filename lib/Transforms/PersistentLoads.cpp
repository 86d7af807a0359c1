//===- PersistentLoads.cpp - A persistent program's loads: hoisted, staged --===//
//
// A persistent program (pid_type persistent_blocked / persistent_interleaved) works on
// several tiles in turn. For a kernel the generic emitter prints, this pass marks the
// lets of loads it can issue differently (Stmt::hoisted, Stmt::staged), from the
// layout thread-layout decided:
//   - hoisted: a load of the first grid loop that does not depend on the tile (a
//     norm's weight: whole dims only, no looped reduction axis) is issued once, before
//     the program loop, and kept in registers across tiles. A program of one tile
//     (flat, xyz) gains nothing from that and would hold it through its whole tile
//     (layer_norm: 128 registers, 2 CTAs per SM), so it is loaded where it is used;
//   - staged: with `indexing: block_ptr` on its site and num_stages >= 2 (the loop's
//     `stages`), a load of the kernel's only grid loop (no dots: num_stages is their
//     pipeline's there) by that loop's tiles and whole dims, read as vectors along its
//     innermost axis (inner, the last subscript), of a tensor never stored, into a
//     variable never reassigned, neither hoisted nor copied by a dot, is copied into
//     shared memory (cp.async) for the next tiles while the program computes this one
//     (lib/CodeGen/EmitStaging.cpp).
//
//   for %tm in tile(0, %m) block bs0 grid(persistent_blocked, order [%tm], l2_group 1) stages 3 {
//     let hoisted %_t0.0 : dtype(w)[a0] = load %w[:]
//     let staged %_t1.1 : dtype(x)[tm, a0] = load %x[%tm, :]
//===----------------------------------------------------------------------===//
#include "helion/Config/Config.h"
#include "helion/Config/Sites.h"
#include "helion/IR/LayoutIndex.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"

#include <algorithm>
#include <map>
#include <set>

namespace helion::ir {
namespace {

class Planner {
public:
  Planner(const Kernel& k, const config::Config& c) : k_(k), c_(c), layout_(k) {
    walkStmts(k.body, [&](const Stmt& s) {
      if (s.kind == StmtKind::Store)
        stored_.insert(s.param);
      if (s.kind == StmtKind::Assign)
        assigned_.insert(s.var);
    });
  }

  /// The hoisted lets of the first grid loop.
  std::set<const Stmt*> hoisted() const {
    std::set<const Stmt*> out;
    for (const StmtRef& s : k_.body.front()->body) {
      const Expr* load = loadOf(*s);
      if (!load || s->dotCopied)
        continue;
      bool invariant = true;
      for (const Index& i : load->indices)
        invariant &= i.kind == Index::Kind::All ||
                     ((i.kind == Index::Kind::Tile || i.kind == Index::Kind::Flat) &&
                      !k_.tiles.at(i.tile).isGrid);
      std::vector<int> axes = layout_.positions(*load->type);
      // Tile coordinates exist only inside the program loop.
      if (invariant && !looped(axes) &&
          std::none_of(axes.begin(), axes.end(),
                       [&](int p) { return (*k_.threadLayout)[p].isTile; }))
        out.insert(s.get());
    }
    return out;
  }

  /// The staged lets of the only grid loop `loop`, given the hoisted ones.
  std::set<const Stmt*> staged(const Stmt& loop, const std::set<const Stmt*>& hoisted) const {
    std::set<const Stmt*> out;
    const std::vector<config::Site> sites = config::loadStoreSites(k_);
    auto blockPtr = [&](const Expr* load) {
      const auto& ix = c_.indexing;
      for (const config::Site& site : sites)
        if (site.load == load) {
          if (site.index < static_cast<int>(ix.size()))
            return ix[static_cast<size_t>(site.index)] == config::Indexing::BlockPtr;
          if (ix.size() == 1) // one entry applies to every site
            return ix[0] == config::Indexing::BlockPtr;
        }
      return false;
    };
    for (const StmtRef& s : loop.body) {
      const Expr* load = loadOf(*s);
      if (!load || load->indices.empty() || hoisted.count(s.get()) || assigned_.count(s->var) ||
          s->dotCopied)
        continue;
      // By this loop's tiles and whole dims only: the copy of the next tile is the same
      // address arithmetic with the next tile's coordinates.
      bool plain = true;
      for (const Index& i : load->indices)
        plain &= !i.value && (i.kind == Index::Kind::All ||
                              (i.kind == Index::Kind::Tile &&
                               std::count(loop.tiles.begin(), loop.tiles.end(), i.tile)));
      std::vector<int> axes = layout_.positions(*load->type);
      if (plain && !axes.empty() && !looped(axes) && (*k_.threadLayout)[axes[0]].inner &&
          layout_.lastSubscript(load->param, load->indices) == axes[0] && blockPtr(load))
        out.insert(s.get());
    }
    return out;
  }

private:
  /// The load of a let the program may move: not a gather, typed, of a tensor the
  /// kernel never stores (its value could change under the program).
  const Expr* loadOf(const Stmt& s) const {
    if (s.kind != StmtKind::Let || !s.value || s.value->kind != ExprKind::Load)
      return nullptr;
    const Expr* load = s.value.get();
    return load->gatherAll || !load->type || stored_.count(load->param) ? nullptr : load;
  }

  bool looped(const std::vector<int>& axes) const {
    return std::any_of(axes.begin(), axes.end(), [&](int p) {
      const ThreadAxis& a = (*k_.threadLayout)[p];
      return !a.isTile && k_.axes.at(a.id).looped();
    });
  }

  const Kernel& k_;
  const config::Config& c_;
  LayoutIndex layout_;
  std::set<int> stored_, assigned_;
};

} // namespace

Kernel persistentLoads(const Kernel& kernel, PassContext& ctx) {
  // Only a kernel the generic emitter prints has a layout; only a persistent one loops.
  if (!kernel.threadLayout || kernel.body.empty() || !kernel.body.front()->grid)
    return kernel;
  const GridMapping::Pid pid = kernel.body.front()->grid->pid;
  if (pid != GridMapping::Pid::PersistentBlocked && pid != GridMapping::Pid::PersistentInterleaved)
    return kernel;
  const config::Config& c = *ctx.config;
  Planner planner(kernel, c);
  const std::set<const Stmt*> hoisted = planner.hoisted();
  std::set<const Stmt*> staged;
  const bool dots = findExpr(kernel.body, [](const Expr& e) { return e.kind == ExprKind::Dot; });
  if (c.numStages >= 2 && kernel.body.size() == 1 && !dots)
    staged = planner.staged(*kernel.body.front(), hoisted);
  if (hoisted.empty() && staged.empty())
    return kernel;
  Kernel out = kernel;
  auto loop = std::make_shared<Stmt>(*kernel.body.front());
  for (StmtRef& s : loop->body)
    if (hoisted.count(s.get()) || staged.count(s.get())) {
      auto let = std::make_shared<Stmt>(*s);
      let->hoisted = hoisted.count(s.get()) > 0;
      let->staged = staged.count(s.get()) > 0;
      s = std::move(let);
    }
  loop->stages = staged.empty() ? 0 : c.numStages;
  out.body.front() = std::move(loop);
  return out;
}

} // namespace helion::ir
