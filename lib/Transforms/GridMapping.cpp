//===- GridMapping.cpp - Program ids to the tiles of each grid loop --------===//
//
// Decides, for each top-level tile loop, how the program ids of the launch enumerate
// its tiles (ir::GridMapping), once, for the device emitter (EmitGrid.cpp) and the
// host launcher (HostRewriter.cpp) to read:
//   - pid: pid_type; xyz (blockIdx.x/y/z index the tiles) only for the kernel's single
//     grid loop of at most three tiles, as the config spec offers it; else flat;
//   - order: the loop's tiles, the first varying fastest; loop_orders entry e permutes
//     them, e counting the grid loops of two or more tiles before this one;
//   - l2Group: l2_groupings entry e', e' counting the grid loops of exactly two tiles
//     before this one. Entries are numbered per kind of loop, not by the loop's
//     position: in a kernel whose first grid loop has one tile and whose second has
//     two, the second loop takes l2_groupings[0]. A group applies to two tiles that
//     are not xyz; everywhere else it is 1.
//
//   for %tm, %tn in ... {               // l2_groupings [8], pid_type flat
//   for %tm, %tn in ... grid(flat, order [%tm, %tn], l2_group 8 = l2_groupings[0]) {
//===----------------------------------------------------------------------===//
#include "helion/Config/Config.h"
#include "helion/Transforms/Passes.h"

#include <algorithm>

namespace helion::ir {
namespace {

GridMapping::Pid pidOf(config::PidType p) {
  switch (p) {
  case config::PidType::Flat: return GridMapping::Pid::Flat;
  case config::PidType::Xyz: return GridMapping::Pid::Xyz;
  case config::PidType::PersistentBlocked: return GridMapping::Pid::PersistentBlocked;
  case config::PidType::PersistentInterleaved: return GridMapping::Pid::PersistentInterleaved;
  }
  return GridMapping::Pid::Flat;
}

/// The permutation `order` of `tiles`, when it is one; else `tiles`.
std::vector<int> permuted(const std::vector<int>& tiles, const std::vector<int>& order) {
  if (order.size() != tiles.size())
    return tiles;
  std::vector<int> out;
  std::vector<bool> used(tiles.size(), false);
  for (int i : order) {
    if (i < 0 || i >= static_cast<int>(tiles.size()) || used[static_cast<size_t>(i)])
      return tiles; // validation reports it; not a permutation
    used[static_cast<size_t>(i)] = true;
    out.push_back(tiles[static_cast<size_t>(i)]);
  }
  return out;
}

} // namespace

Kernel gridMapping(const Kernel& kernel, PassContext& ctx) {
  const config::Config& c = *ctx.config;
  Kernel out = kernel;
  int orderEntries = 0, groupEntries = 0; // entries taken by the loops before
  for (StmtRef& s : out.body) {
    if (s->kind != StmtKind::For)
      continue;
    GridMapping g;
    g.pid = pidOf(c.pidType);
    if (g.pid == GridMapping::Pid::Xyz && (kernel.body.size() != 1 || s->tiles.size() > 3))
      g.pid = GridMapping::Pid::Flat;
    g.order = s->tiles;
    if (s->tiles.size() >= 2) {
      const int e = orderEntries++;
      if (e < static_cast<int>(c.loopOrders.size())) {
        g.order = permuted(s->tiles, c.loopOrders[static_cast<size_t>(e)]);
        g.loopOrderEntry = e;
      }
    }
    if (s->tiles.size() == 2) {
      const int e = groupEntries++;
      if (e < static_cast<int>(c.l2Groupings.size()) && g.pid != GridMapping::Pid::Xyz) {
        g.l2Group = std::max(1, c.l2Groupings[static_cast<size_t>(e)]);
        g.l2Entry = e;
      }
    }
    auto mapped = std::make_shared<Stmt>(*s);
    mapped->grid = std::move(g);
    s = std::move(mapped);
  }
  return out;
}

} // namespace helion::ir
