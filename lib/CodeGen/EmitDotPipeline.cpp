//===- EmitDotPipeline.cpp - The general dot's copies ahead of its mma ----===//
//
// The pipelined dot (ir::planMma: the first directly in the body of a one-tile loop,
// with no other dot in that loop, whose operands are loads by tiles and whole dims
// of tensors the kernel does not write, or an A in registers) keeps the copies of
// STAGES - 1 tiles of its loop in flight (cp.async into a ring of STAGES buffers)
// while a tile's mma runs, with one barrier per tile:
//
//   __syncthreads(); copies of tiles 0 .. STAGES-2 -> buffers 0 .. STAGES-2,
//                    a commit each                          (before the loop)
//   for each tile i (buffer b = i % STAGES):
//     ... the dot: wait_group STAGES-2 (tile i's copies are done); __syncthreads();
//         copies of tile i + STAGES-1 -> buffer (b + STAGES-1) % STAGES (the one
//         tile i-1 read: every thread is past that mma); commit; mma from buffer b
//
// STAGES is the dot's `stages` (num_stages) lowered per instantiation to what fits in
// 48 KB with the kernel's other dots (the operand types' sizes); below 2 (`PIPE`
// false) the dot copies its tile between two barriers.
//
// A dot marked `early` (ir::planMma) issues its copies at the top of each iteration of
// its loop, after a barrier, into a buffer of its own (EOFF<n>, when EARLY<n>: it fits),
// and waits for them at the dot (wait_group 0, a barrier).
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/IR/Visitor.h"

namespace helion::codegen {

using namespace ir;

/// The copies of the pipelined dot's loads for the tile at `tile` (an int64
/// expression) of its loop, into buffer `stage`; committed as one cp.async group.
void Emitter::emitPipelineCopies(const Stmt& loop, const std::string& tile,
                                 const std::string& stage) {
  const MmaDotPlan& p = mmaDots_.at(pipeDot_);
  const std::string site = "D" + std::to_string(dotSite_.at(pipeDot_));
  const std::string n = "t" + std::to_string(loop.tiles[0]);
  const std::string bs = std::to_string(tileBlockSize(loop.tiles[0]));
  line("{");
  ++indent_;
  line("const int64 tb_" + n + " = " + tile + ";");
  line("const int64 te_" + n + " = hd::minimum<int64>(tb_" + n + " + " + bs + ", end_" + n + ");");
  line("if (tb_" + n + " < end_" + n + ") {");
  ++indent_;
  const std::string buf = "dot_smem + (" + stage + ") * " + site + "::kBytes";
  if (p.loadA)
    stageMmaLoad(*pipeDot_->operands[0], *p.loadA, site, true, buf, true);
  stageMmaLoad(*pipeDot_->operands[1], *p.loadB, site, false, buf, true);
  --indent_;
  line("}");
  line("hd::cp_async_commit();");
  --indent_;
  line("}");
}

/// Before the pipelined dot's loop: the copies of its first STAGES - 1 tiles, one
/// group each (after a barrier: an earlier dot may still read the staging area).
void Emitter::emitPipelinePrologue(const Stmt& loop) {
  const std::string n = "t" + std::to_string(loop.tiles[0]);
  line("// dot pipeline (EmitDotPipeline.cpp): the copies (cp.async) of the next STAGES - 1 "
       "tiles are in flight while a tile's mma runs");
  line("int pipe_stage = 0; // the buffer of this tile");
  line("if constexpr (PIPE) {");
  ++indent_;
  line("__syncthreads();");
  line("#pragma unroll");
  line("for (int s = 0; s < STAGES - 1; ++s) {");
  ++indent_;
  emitPipelineCopies(loop, scalarExpr(*k_.tiles.at(loop.tiles[0]).begin) + " + int64(s) * " +
                               std::to_string(tileBlockSize(loop.tiles[0])),
                     "s");
  --indent_;
  line("}");
  --indent_;
  line("}");
}

/// In the dot, after the barrier that makes this tile's copies visible: the copies of
/// the tile STAGES - 1 ahead, into the buffer the previous tile's mma read (every
/// thread is past that mma: it reached the barrier).
void Emitter::emitPipelinePrefetch(const Stmt& loop) {
  const std::string n = "t" + std::to_string(loop.tiles[0]);
  line("{");
  ++indent_;
  line("const int64 next_" + n + " = tb_" + n + " + int64(STAGES - 1) * " +
       std::to_string(tileBlockSize(loop.tiles[0])) + ";");
  emitPipelineCopies(loop, "next_" + n, "(pipe_stage + STAGES - 1) % STAGES");
  --indent_;
  line("}");
}

/// At the top of `loop`'s body: the copies of the dots that copy early in it, each
/// into its own buffer (after a barrier: the previous iteration's dot read it).
void Emitter::emitEarlyCopies(const Stmt& loop) {
  for (const auto& [d, p] : mmaDots_) {
    if (p.earlyLoop != &loop)
      continue;
    const std::string n = std::to_string(dotSite_.at(d)), site = "D" + n;
    line("if constexpr (EARLY" + n + ") { // " + site +
         "'s copies, early (cp.async): they land while the code before it runs");
    ++indent_;
    line("__syncthreads();");
    const std::string buf = "dot_smem + EOFF" + n;
    if (p.loadA)
      stageMmaLoad(*d->operands[0], *p.loadA, site, true, buf, true);
    stageMmaLoad(*d->operands[1], *p.loadB, site, false, buf, true);
    line("hd::cp_async_commit();");
    --indent_;
    line("}");
  }
}

/// The buffer a dot reads: the pipelined dot's ring slot, an early dot's own buffer.
std::string Emitter::dotBuffer(const Expr& dot, const std::string& site) const {
  if (&dot == pipeDot_)
    return "dot_smem + pipe_stage * " + site + "::kBytes";
  auto it = mmaDots_.find(&dot);
  if (it != mmaDots_.end() && it->second.earlyLoop)
    return "dot_smem + DOFF" + site.substr(1);
  return "dot_smem";
}

} // namespace helion::codegen
