//===- ApplyConfig.cpp - The config's plain entries resolved, into the IR --===//
//
// The first pass that reads the config. Each entry that is a lookup (its value for
// one declaration, loop or load, or for the kernel) is written into the IR once, so
// the passes and emitters after it read the IR instead of indexing the config:
//   - every block-size declaration gets the size this config gives it
//     (config::resolveBlockSize: the source's fixed value, else its entry of
//     block_sizes), and every reduction axis its entry of reduction_loops (persistent
//     when the entry is null or missing);
//   - every inner tile loop its entry of range_unroll_factors (0 when missing), the
//     loops numbered as the spec numbers them (config::tileLoops, pre-order);
//   - every load the spec lets take a hint (config::hintableLoadSites) its entry of
//     load_eviction_policies, numbered as the spec numbers load sites;
//   - a kernel the generic emitter prints, its launch: threads (num_warps), maxnreg,
//     vector_bytes, num_sm_multiplier. A template (matmul, attention) plans its own.
//
//   block_sizes: bs0(tm, hint %m) = 4 (block_sizes[0])   // block_sizes [4]
//   axes: a0(%x.size(1)) looped 1024                      // reduction_loops [1024]
//   launch: threads 128, vector_bytes 16, num_sm_multiplier 1
//   for %tk in tile(0, %k) block bs1 unroll 2 = range_unroll_factors[0] {
//     let %_t0.1 : dtype(x)[tk] = load %x[%tk] evict_first (load_eviction_policies[0])
//===----------------------------------------------------------------------===//
#include "helion/Config/BlockSizes.h"
#include "helion/Config/Config.h"
#include "helion/Config/ConfigSpec.h"
#include "helion/Config/Sites.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/Mutator.h"
#include "helion/Transforms/Passes.h"

#include <algorithm>
#include <map>

namespace helion::ir {
namespace {

/// Writes the unroll factors into the inner loops and the hints into the loads.
class Resolve : public IRMutator {
public:
  Resolve(const Kernel& k, const config::Config& c) {
    int inner = 0; // range_unroll_factors counts the inner loops only
    for (const config::LoopInfo& l : config::tileLoops(k))
      if (!l.isGrid) {
        const int e = inner++;
        const bool has = e < static_cast<int>(c.rangeUnrollFactors.size());
        unroll_[l.stmt] = {has ? c.rangeUnrollFactors[static_cast<size_t>(e)] : 0, has ? e : -1};
      }
    const std::vector<int> hintable = config::hintableLoadSites(k);
    for (const config::Site& site : config::loadStoreSites(k)) {
      const int e = site.loadIndex;
      if (!site.load || !std::count(hintable.begin(), hintable.end(), e) ||
          e >= static_cast<int>(c.loadEvictionPolicies.size()))
        continue;
      switch (c.loadEvictionPolicies[static_cast<size_t>(e)]) {
      case config::EvictionPolicy::First: hint_[site.load] = {Eviction::First, e}; break;
      case config::EvictionPolicy::Last: hint_[site.load] = {Eviction::Last, e}; break;
      case config::EvictionPolicy::Default: break;
      }
    }
  }

  ExprRef mutate(const ExprRef& e) override {
    // A node shared by several parents stays shared: the site numbering counts it once,
    // and the passes after this one number the sites again.
    if (auto done = memo_.find(e.get()); done != memo_.end())
      return done->second;
    ExprRef n = mutateChildren(e);
    if (auto h = hint_.find(e.get()); h != hint_.end()) {
      auto hinted = std::make_shared<Expr>(*n);
      hinted->eviction = h->second.first;
      hinted->evictionEntry = h->second.second;
      n = std::move(hinted);
    }
    return memo_[e.get()] = n;
  }

  void mutate(const StmtRef& s, std::vector<StmtRef>& out) override {
    StmtRef n = mutateChildren(s);
    if (auto u = unroll_.find(s.get()); u != unroll_.end()) {
      auto loop = std::make_shared<Stmt>(*n);
      loop->unroll = u->second.first;
      loop->unrollEntry = u->second.second;
      n = std::move(loop);
    }
    out.push_back(std::move(n));
  }

private:
  std::map<const Stmt*, std::pair<int, int>> unroll_;         // factor, entry
  std::map<const Expr*, std::pair<Eviction, int>> hint_;      // policy, entry
  std::map<const Expr*, ExprRef> memo_;
};

} // namespace

Kernel applyConfig(const Kernel& kernel, PassContext& ctx) {
  const config::Config& c = *ctx.config;
  Kernel out = Resolve(kernel, c).mutateKernel(kernel);
  for (BlockSizeDecl& b : out.blockSizes) {
    config::ResolvedBlockSize r = config::resolveBlockSize(kernel, c, b.id);
    b.chosen = r.value;
    b.configIndex = r.configIndex;
  }
  const auto& loops = c.reductionLoops;
  for (Axis& a : out.axes)
    a.loopChunk = a.id < static_cast<int>(loops.size()) && loops[a.id] ? *loops[a.id] : 0;
  if (dotTemplate(kernel) == DotTemplate::None) {
    Launch l;
    l.threads = 32 * std::clamp(c.numWarps, 1, 32);
    l.maxnreg = c.maxnreg;
    l.vectorBytes = c.vectorBytes > 0 ? c.vectorBytes : 16; // 0: the widest, 16 bytes
    l.smMultiplier = c.numSmMultiplier;
    out.launch = l;
  }
  return out;
}

} // namespace helion::ir
