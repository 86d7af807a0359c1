//===- EmitGrid.cpp - Program ids to tiles ---------------------------------===//
//
// Each top-level tile loop becomes a loop over program ids: one program per tile
// (flat, xyz) or a persistent program over several (persistent_blocked /
// persistent_interleaved, optionally with the next tiles' loads staged through
// shared memory, EmitStaging.cpp). Loads that do not depend on the tile are
// issued once before a persistent loop.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include <string>
#include <vector>

namespace helion::codegen {

using namespace ir;

// Program ids to tiles, as the grid-mapping pass decided (ir::GridMapping): tiles
// are numbered first-tile-fastest in the mapping's order (as Helion's flat pid
// mapping); with an L2 group G > 1 on two tiles, programs walk G rows of tiles column
// by column, so neighbours share operand tiles in L2.
void Emitter::emitGridLoop(const Stmt& loop, int loopIndex, const std::string& pidBase) {
  const GridMapping& grid = *loop.grid;
  const std::vector<int>& tiles = grid.order;
  GridLoop g;
  g.tiles = tiles;
  std::string total = "1";
  for (int t : tiles) {
    const TileVar& tv = k_.tiles[t];
    int64_t bs = tileBlockSize(t);
    g.blockSizes.push_back(bs);
    std::string n = "nt_t" + std::to_string(t);
    std::string end = tileEnd(t);
    line("const int64 begin_t" + std::to_string(t) + " = " + scalarExpr(*tv.begin) + ";");
    line("const int64 end_t" + std::to_string(t) + " = " + end + ";");
    line("const int64 " + n + " = hd::cdiv<int64>(end_t" + std::to_string(t) + " - begin_t" +
         std::to_string(t) + ", " + std::to_string(bs) + ");");
    total += " * " + n;
  }
  out_.loops.push_back(g);
  line("const int64 total_" + std::to_string(loopIndex) + " = " + total + ";");
  // Loads that do not depend on the program's tile, issued once before the program
  // loop of a persistent program (persistent-loads marks them hoisted).
  for (const StmtRef& s : loop.body)
    if (s->hoisted) {
      lineDirective(s->loc);
      emitLet(*s, true);
      hoistedLets_.insert(s.get());
    }
  // Loads of the tile a persistent program will work on next, issued into
  // shared memory while it computes this one (indexing block_ptr, num_stages).
  planStaging(loop);
  std::string tot = "total_" + std::to_string(loopIndex);
  const bool staged = !staged_.empty();
  if (staged) {
    // A scope of its own: pid_first, stage_it, ... are declared once per grid loop.
    line("{");
    ++indent_;
    emitStagingBuffers(loop.stages);
    if (grid.pid == GridMapping::Pid::PersistentInterleaved) {
      line("const int64 pid_first = blockIdx.x, pid_step = gridDim.x, pid_end = " + tot + ";");
    } else {
      line("const int64 per_cta = hd::cdiv<int64>(" + tot + ", (int64)gridDim.x);");
      line("const int64 pid_first = blockIdx.x * per_cta, pid_step = 1;");
      line("const int64 pid_end = hd::minimum<int64>(pid_first + per_cta, " + tot + ");");
    }
    line("if constexpr (STAGED) {");
    line("  #pragma unroll 1");
    line("  for (int stage_s = 0; stage_s < STG - 1; ++stage_s) {");
    line("    const int64 pid = pid_first + stage_s * pid_step;");
    line("    if (pid < pid_end) {");
    indent_ += 3;
    emitTileDecode(grid);
    emitStagedIssue("stage_s");
    indent_ -= 3;
    line("    }");
    line("    hd::cp_async_commit();");
    line("  }");
    line("}");
    line("int stage_it = 0;");
    line("for (int64 pid = pid_first; pid < pid_end; pid += pid_step, ++stage_it) {");
    ++indent_;
    line("if constexpr (STAGED) {");
    line("  const int64 pid_next = pid + (STG - 1) * pid_step;");
    line("  if (pid_next < pid_end) {");
    line("    const int64 pid = pid_next;");
    indent_ += 2;
    emitTileDecode(grid);
    emitStagedIssue("(stage_it + STG - 1) % STG");
    indent_ -= 2;
    line("  }");
    line("  hd::cp_async_commit();");
    line("  hd::cp_async_wait<STG - 1>();");
    line("}");
    line("const int stage_slot = stage_it % STG;");
    emitTileDecode(grid);
    stmts(loop.body);
    --indent_;
    line("}");
    --indent_;
    line("}");
    return;
  }
  if (grid.pid == GridMapping::Pid::PersistentInterleaved) {
    line("for (int64 pid = blockIdx.x; pid < " + tot + "; pid += gridDim.x) {");
  } else if (grid.pid == GridMapping::Pid::PersistentBlocked) {
    // Named per grid loop: several loops share one kernel body.
    std::string perCta = "per_cta_" + std::to_string(loopIndex);
    line("const int64 " + perCta + " = hd::cdiv<int64>(" + tot + ", (int64)gridDim.x);");
    line("for (int64 pid = blockIdx.x * " + perCta + "; pid < (blockIdx.x + 1) * " + perCta +
         " && pid < " + tot + "; ++pid) {");
  } else if (grid.pid == GridMapping::Pid::Xyz) {
    line("{");
  } else {
    line("for (int64 pid = (int64)blockIdx.x - " + pidBase + "; pid >= 0 && pid < " + tot +
         "; pid += " + tot + ") {");
  }
  ++indent_;
  emitTileDecode(grid);
  stmts(loop.body);
  // xyz: the y and z tiles loop past 65535 (the launch grid's limit on y and z).
  const size_t strided = grid.pid == GridMapping::Pid::Xyz && !grid.order.empty()
                             ? grid.order.size() - 1
                             : 0;
  for (size_t i = 0; i <= strided; ++i) {
    --indent_;
    line("}");
  }
}

// The tile coordinates (id_t, tb_t, te_t) of program `pid`.
void Emitter::emitTileDecode(const GridMapping& grid) {
  const std::vector<int>& tiles = grid.order;
  const int group = grid.l2Group;
  if (grid.pid == GridMapping::Pid::Xyz) {
    // x covers its tiles (up to 2^31 - 1 programs); y and z, limited to 65535, loop
    // with the grid's stride when a loop has more tiles (the launcher caps them).
    static const char* dims[] = {"x", "y", "z"};
    const std::string x = std::to_string(tiles[0]);
    line("const int64 id_t" + x + " = blockIdx.x;");
    line("if (id_t" + x + " >= nt_t" + x + ") return;");
    for (size_t i = 1; i < tiles.size(); ++i) {
      const std::string t = std::to_string(tiles[i]);
      line(std::string("for (int64 id_t") + t + " = blockIdx." + dims[i] + "; id_t" + t +
           " < nt_t" + t + "; id_t" + t + " += gridDim." + dims[i] + ") {");
      ++indent_;
    }
  } else if (tiles.size() == 2 && group > 1) {
    std::string a = std::to_string(tiles[0]), b = std::to_string(tiles[1]);
    line("const int64 in_group = " + std::to_string(group) + " * nt_t" + b + ";");
    line("const int64 first = (pid / in_group) * " + std::to_string(group) + ";");
    line("const int64 gsize = (nt_t" + a + " - first) < " + std::to_string(group) + " ? (nt_t" + a +
         " - first) : " + std::to_string(group) + ";");
    line("const int64 id_t" + a + " = first + (pid % in_group) % gsize;");
    line("const int64 id_t" + b + " = (pid % in_group) / gsize;");
  } else {
    // pid < the product of the nt_t (every program loop guarantees it), so the
    // last coordinate needs no remainder: one 64-bit division fewer per axis
    // (each is a ~70-instruction subroutine, and NVRTC time).
    if (tiles.size() > 1)
      line("int64 rem = pid;");
    for (size_t i = 0; i < tiles.size(); ++i) {
      std::string s = std::to_string(tiles[i]);
      if (i + 1 == tiles.size()) {
        line("const int64 id_t" + s + " = " + (tiles.size() > 1 ? "rem" : "pid") + ";");
      } else {
        line("const int64 id_t" + s + " = rem % nt_t" + s + ";");
        line("rem /= nt_t" + s + ";");
      }
    }
  }
  for (int t : tiles) {
    std::string s = std::to_string(t);
    int64_t bs = tileBlockSize(t);
    line("const int64 tb_t" + s + " = begin_t" + s + " + id_t" + s + " * " + std::to_string(bs) +
         ";");
    line("const int64 te_t" + s + " = hd::minimum<int64>(tb_t" + s + " + " + std::to_string(bs) +
         ", end_t" + s + ");");
  }
}

} // namespace helion::codegen
