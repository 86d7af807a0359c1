//===- Sites.cpp - Numbering of tile loops and load/store sites ------------===//
//
// The walk order is the contract documented in Sites.h; passes that need a site's
// config entry number sites with these functions, never with a walk of their own.
//===----------------------------------------------------------------------===//
#include "helion/Config/Sites.h"
#include "helion/IR/Visitor.h"

#include <unordered_set>

namespace helion::config {
namespace {

/// Numbers the sites in the order of the IR walk (Visitor.h): a load when its walk
/// ends (after the loads in its subscripts and mask), a store after its subscripts,
/// value and mask. A node shared by two parents is one site.
class SiteWalker : public ir::IRVisitor {
public:
  std::vector<Site> sites;

protected:
  bool enter(const ir::Expr& e) override { return seen_.insert(&e).second; }
  void leave(const ir::Expr& e) override {
    if (e.kind == ir::ExprKind::Load)
      add(Site::Kind::Load, &e, nullptr, e.param, e.loc);
  }
  void leave(const ir::Stmt& s) override {
    if (s.kind == ir::StmtKind::Store)
      add(Site::Kind::Store, nullptr, &s, s.param, s.loc);
  }

private:
  std::unordered_set<const ir::Expr*> seen_;
  int loads_ = 0;

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

/// The tile loops in pre-order, with their nesting depth.
class LoopWalker : public ir::IRVisitor {
public:
  std::vector<LoopInfo> loops;

protected:
  bool enter(const ir::Expr&) override { return false; } // loops hold no loops in values
  bool enter(const ir::Stmt& s) override {
    if (s.kind != ir::StmtKind::For)
      return false;
    LoopInfo info;
    info.stmt = &s;
    info.index = static_cast<int>(loops.size());
    info.isGrid = depth_ == 0;
    info.depth = depth_++;
    info.tiles = s.tiles;
    loops.push_back(std::move(info));
    return true;
  }
  void leave(const ir::Stmt&) override { --depth_; }

private:
  int depth_ = 0;
};

} // namespace

std::vector<LoopInfo> tileLoops(const ir::Kernel& kernel) {
  LoopWalker walker;
  walker.visit(kernel);
  return std::move(walker.loops);
}

std::vector<Site> loadStoreSites(const ir::Kernel& kernel) {
  SiteWalker walker;
  walker.visit(kernel);
  return std::move(walker.sites);
}

} // namespace helion::config
