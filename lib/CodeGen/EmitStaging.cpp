//===- EmitStaging.cpp - Next tiles' loads through shared memory -----------===//
//
// With `indexing: block_ptr` on a load and `num_stages` >= 2, a persistent
// program (pid_type persistent_*) copies the tiles it will work on next into
// shared memory with cp.async while it computes the current one, so the memory
// system always has this CTA's next rows in flight:
//
//   prologue: issue tiles pid_first .. pid_first + (STG-2) * pid_step, one group each
//   for each tile of this program (iteration it):
//     issue tile pid + (STG-1) * pid_step into slot (it + STG-1) % STG; commit
//     wait until this tile's group landed (wait_group STG-1)
//     the staged lets read their vectors from slot it % STG (LDS, not LDG)
//
// Each thread copies exactly the vectors it later reads, at [slot][vector][thread]
// (consecutive threads, consecutive 16 bytes): no barrier is needed, only the
// thread's own wait_group. The slot a thread refills was read by that thread in
// the previous iteration, whose results were stored before the refill is issued.
// STG is num_stages clamped to what fits in 48 KB of static shared memory; when
// one stage does not fit (STAGED false), the loads go to global memory directly.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/Config/ConfigSpec.h"
#include "helion/Config/Sites.h"
#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;

void Emitter::planStaging(const Stmt& loop) {
  staged_.clear();
  const bool persistent = persistentGrid();
  // In a kernel with general dots num_stages is their pipeline's (MmaLayout.cpp).
  if (!persistent || cfg_.numStages < 2 || k_.body.size() != 1 ||
      findExpr(k_.body, [](const Expr& e) { return e.kind == ExprKind::Dot; }))
    return;
  std::vector<config::Site> sites = config::loadStoreSites(k_);
  auto indexingOf = [&](const Expr* load) {
    for (const config::Site& site : sites)
      if (site.load == load) {
        if (site.index < static_cast<int>(cfg_.indexing.size()))
          return cfg_.indexing[site.index];
        if (cfg_.indexing.size() == 1)
          return cfg_.indexing[0];
      }
    return config::Indexing::Pointer;
  };
  for (const StmtRef& s : loop.body) {
    if (s->kind != StmtKind::Let || !s->value || s->value->kind != ExprKind::Load)
      continue;
    const Expr& load = *s->value;
    if (load.gatherAll || !load.type || load.indices.empty() || storedParams_.count(load.param) ||
        hoistedLets_.count(s.get()) || assignedVars_.count(s->var) ||
        dotOperandLets_.count(s.get()))
      continue;
    // Subscripts by this loop's tiles and whole dims only: the copy of the next
    // tile is the same address arithmetic with the next tile's coordinates.
    bool plain = true;
    for (const Index& i : load.indices)
      plain &= !i.value && (i.kind == Index::Kind::All ||
                            (i.kind == Index::Kind::Tile &&
                             std::count(loop.tiles.begin(), loop.tiles.end(), i.tile)));
    std::vector<int> axes = axesOf(*load.type);
    if (!plain || axes.empty() || loopedAxisOf(axes) >= 0 || !axes_[axes[0]].inner ||
        lastSubscriptAxis(load.param, load.indices) != axes[0])
      continue;
    if (indexingOf(&load) == config::Indexing::BlockPtr)
      staged_.push_back(s.get());
  }
}

void Emitter::emitStagingBuffers() {
  line("// Staged loads (indexing block_ptr, num_stages " + std::to_string(cfg_.numStages) +
       "): each thread's vectors of the next tiles, copied by cp.async.");
  std::string bytes;
  for (size_t j = 0; j < staged_.size(); ++j) {
    const Expr& load = *staged_[j]->value;
    std::vector<int> axes = axesOf(*load.type);
    std::string count;
    for (int a : axes) {
      const std::string& x = axes_[a].key;
      count += (count.empty() ? "" : " * ") +
               (a == axes[0] ? "(E_" + x + " / V_" + x + ")" : "E_" + x);
    }
    std::string n = std::to_string(j);
    line("using stage_t" + n + " = hvec<T_" + k_.params[load.param].name + ", V_" +
         axes_[axes[0]].key + ">;");
    line("constexpr int NSLOT" + n + " = " + count + ";");
    bytes += (bytes.empty() ? "" : " + ") + std::string("NSLOT") + n + " * int(sizeof(stage_t" + n +
             "))";
  }
  line("constexpr int STAGE_BYTES = NT * (" + bytes + ");");
  line("constexpr int STAGE_ROOM = 48 * 1024 - 2 * NT * int(sizeof(double)); // beside smem_raw");
  line("constexpr bool STAGED = STAGE_BYTES <= STAGE_ROOM;");
  line("constexpr int STG = STAGED ? hmax(1, hmin(" + std::to_string(cfg_.numStages) +
       ", STAGE_ROOM / STAGE_BYTES)) : 1;");
  for (size_t j = 0; j < staged_.size(); ++j) {
    std::string n = std::to_string(j);
    line("__shared__ stage_t" + n + " stage" + n + "[STAGED ? STG : 1][STAGED ? NSLOT" + n +
         " : 1][STAGED ? NT : 1];");
  }
}

std::string Emitter::evictionOf(const Expr& load) {
  if (cfg_.loadEvictionPolicies.empty())
    return "";
  if (loadSite_.empty()) { // the hintable sites only (the spec offers the key there)
    const std::vector<int> hintable = config::hintableLoadSites(k_);
    for (const config::Site& site : config::loadStoreSites(k_))
      if (site.load && std::count(hintable.begin(), hintable.end(), site.loadIndex))
        loadSite_[site.load] = site.loadIndex;
  }
  auto it = loadSite_.find(&load);
  if (it == loadSite_.end() || it->second >= static_cast<int>(cfg_.loadEvictionPolicies.size()))
    return "";
  switch (cfg_.loadEvictionPolicies[it->second]) {
  case config::EvictionPolicy::First: return "hd::Evict::first";
  case config::EvictionPolicy::Last: return "hd::Evict::last";
  default: return "";
  }
}

std::string Emitter::stagedSlot(const Stmt& s) const {
  std::vector<int> axes = axesOf(*s.value->type);
  std::string e;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    const std::string& x = axes_[*it].key;
    const bool vec = *it == axes[0];
    std::string idx = vec ? "g_" + x : "i_" + x;
    std::string count = vec ? "(E_" + x + " / V_" + x + ")" : "E_" + x;
    e = e.empty() ? idx : "(" + e + ") * " + count + " + " + idx;
  }
  return e;
}

void Emitter::emitStagedIssue(const std::string& slot) {
  for (size_t j = 0; j < staged_.size(); ++j) {
    const Stmt& s = *staged_[j];
    const Expr& load = *s.value;
    const std::string& name = k_.params[load.param].name;
    std::vector<int> axes = axesOf(*load.type);
    const int vec = axes[0];
    const LayoutAxis& la = axes_[vec];
    const std::string& x = la.key;
    std::string pred;
    for (int a : axes)
      if (a != vec)
        pred += inBounds(a) + " && ";
    const std::string first = la.isTile ? "tb_t" + std::to_string(la.id) + " + c0_" + x
                                        : "off_" + x + " + c0_" + x;
    const std::string end = la.isTile ? "te_t" + std::to_string(la.id) : "ext_" + x;
    pred += "(X_" + x + " || " + first + " < " + end + ")";
    const std::string n = std::to_string(j);
    openElementLoops(axes, vec);
    line("const int c0_" + x + " = coord(g_" + x + " * V_" + x + ", th_" + x + ", T_" + x +
         ", V_" + x + ");");
    line("hd::stage_copy<int(sizeof(stage_t" + n + "))>(&stage" + n + "[" + slot + "][" +
         stagedSlot(s) + "][threadIdx.x], " + name + " + " +
         tensorOffset(load.param, load.indices, false, vec, "(" + first + ")") + ", " + pred +
         ");");
    closeElementLoops(axes);
  }
}

} // namespace helion::codegen
