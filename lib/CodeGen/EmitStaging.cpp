//===- EmitStaging.cpp - Next tiles' loads through shared memory -----------===//
//
// The lets the persistent-loads pass marks `staged` (`indexing: block_ptr` on a load,
// `num_stages` >= 2, a persistent program: lib/Transforms/PersistentLoads.cpp) are
// copied, for the tiles the program will work on next, into shared memory with
// cp.async while it computes the current one, so the memory system always has this
// CTA's next rows in flight:
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
// STG is the loop's stages (num_stages) clamped to what fits in 48 KB of static shared
// memory; when one stage does not fit (STAGED false), the loads go to global memory
// directly.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

namespace helion::codegen {

using namespace ir;

// The lets persistent-loads staged, in the loop's order (stage0, stage1, ...).
void Emitter::planStaging(const Stmt& loop) {
  staged_.clear();
  for (const StmtRef& s : loop.body)
    if (s->staged)
      staged_.push_back(s.get());
}

void Emitter::emitStagingBuffers(int stages) {
  line("// Staged loads (indexing block_ptr, num_stages " + std::to_string(stages) +
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
    line("using stage_t" + n + " = hvec<" + genType(k_.params[load.param]) + ", V_" +
         axes_[axes[0]].key + ">;");
    line("constexpr int NSLOT" + n + " = " + count + ";");
    bytes += (bytes.empty() ? "" : " + ") + std::string("NSLOT") + n + " * int(sizeof(stage_t" + n +
             "))";
  }
  line("constexpr int STAGE_BYTES = NT * (" + bytes + ");");
  line("constexpr int STAGE_ROOM = 48 * 1024 - 2 * NT * int(sizeof(double)); // beside smem_raw");
  line("constexpr bool STAGED = STAGE_BYTES <= STAGE_ROOM;");
  line("constexpr int STG = STAGED ? hmax(1, hmin(" + std::to_string(stages) +
       ", STAGE_ROOM / STAGE_BYTES)) : 1;");
  for (size_t j = 0; j < staged_.size(); ++j) {
    std::string n = std::to_string(j);
    line("__shared__ stage_t" + n + " stage" + n + "[STAGED ? STG : 1][STAGED ? NSLOT" + n +
         " : 1][STAGED ? NT : 1];");
  }
}

std::string Emitter::evictionOf(const Expr& load) const {
  switch (load.eviction) { // apply-config's hint, on the loads the spec offers one
  case Eviction::First: return "hd::Evict::first";
  case Eviction::Last: return "hd::Evict::last";
  case Eviction::None: return "";
  }
  return "";
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
    const std::string name = genName(k_.params[load.param]);
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
