//===- Sites.cpp - Numbering of tile loops and load/store sites ------------===//
//
// The walk order is the contract documented in Sites.h; passes that need a site's
// config entry number sites with these functions, never with a walk of their own.
//===----------------------------------------------------------------------===//
#include "helion/Config/Sites.h"

#include <unordered_set>

namespace helion::config {
namespace {

class SiteWalker {
public:
  std::vector<Site> sites;

  void stmt(const ir::Stmt& s) {
    switch (s.kind) {
    case ir::StmtKind::For:
      for (const ir::StmtRef& child : s.body)
        stmt(*child);
      return;
    case ir::StmtKind::Let:
    case ir::StmtKind::Assign:
      expr(s.value);
      return;
    case ir::StmtKind::Store:
      indices(s.indices);
      expr(s.value);
      expr(s.mask);
      add(Site::Kind::Store, nullptr, &s, s.param, s.loc);
      return;
    }
  }

private:
  std::unordered_set<const ir::Expr*> seen_;
  int loads_ = 0;

  void indices(const std::vector<ir::Index>& idx) {
    for (const ir::Index& i : idx)
      expr(i.value);
  }

  void expr(const ir::ExprRef& e) {
    if (!e || !seen_.insert(e.get()).second)
      return;
    for (const ir::ExprRef& op : e->operands)
      expr(op);
    indices(e->indices);
    if (e->kind == ir::ExprKind::Load)
      add(Site::Kind::Load, e.get(), nullptr, e->param, e->loc);
  }

  void add(Site::Kind kind, const ir::Expr* load, const ir::Stmt* store, int param,
           const ir::SourceLoc& loc) {
    Site site;
    site.kind = kind;
    site.index = static_cast<int>(sites.size());
    site.loadIndex = kind == Site::Kind::Load ? loads_++ : -1;
    site.load = load;
    site.store = store;
    site.param = param;
    site.loc = loc;
    sites.push_back(std::move(site));
  }
};

void collectLoops(const ir::Stmt& s, int depth, std::vector<LoopInfo>& out) {
  if (s.kind != ir::StmtKind::For)
    return;
  LoopInfo info;
  info.stmt = &s;
  info.index = static_cast<int>(out.size());
  info.isGrid = depth == 0;
  info.depth = depth;
  info.tiles = s.tiles;
  out.push_back(std::move(info));
  for (const ir::StmtRef& child : s.body)
    collectLoops(*child, depth + 1, out);
}

} // namespace

std::vector<LoopInfo> tileLoops(const ir::Kernel& kernel) {
  std::vector<LoopInfo> loops;
  for (const ir::StmtRef& s : kernel.body)
    collectLoops(*s, 0, loops);
  return loops;
}

std::vector<Site> loadStoreSites(const ir::Kernel& kernel) {
  SiteWalker walker;
  for (const ir::StmtRef& s : kernel.body)
    walker.stmt(*s);
  return std::move(walker.sites);
}

} // namespace helion::config
