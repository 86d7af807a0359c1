//===- EmitDotPipeline.cpp - The general dot's copies a tile ahead --------===//
//
// The pipelined dot (ir::planMma: the first directly in the body of a one-tile loop,
// with no other dot in that loop, whose operands are loads by tiles and whole dims
// of tensors the kernel does not write, or an A in registers) copies its next
// tile's operands with cp.async into a second buffer while this tile's mma runs:
//
//   __syncthreads(); copies of tile 0 -> buffer 0; commit     (before the loop)
//   for each tile:
//     copies of the next tile -> buffer stage ^ 1; commit
//     ... the dot: wait_group 1; __syncthreads(); mma from buffer stage;
//         __syncthreads()                        (the buffer may be overwritten)
//     stage ^= 1
//
// Two buffers fit or not per instantiation (the operand types' sizes): the kernel's
// `PIPE` constant; without it the dot copies its tile between two barriers.
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

/// Before the pipelined dot's loop: its first tile's copies (after a barrier: an
/// earlier dot may still read the staging area).
void Emitter::emitPipelinePrologue(const Stmt& loop) {
  line("// dot pipeline (EmitMmaDot.cpp): each tile's operands are copied (cp.async) while "
       "the previous tile's mma runs");
  line("int pipe_stage = 0;");
  line("if constexpr (PIPE) {");
  ++indent_;
  line("__syncthreads();");
  emitPipelineCopies(loop, scalarExpr(*k_.tiles.at(loop.tiles[0]).begin), "0");
  --indent_;
  line("}");
}

/// At the top of the loop body: the next tile's copies, into the other buffer.
void Emitter::emitPipelinePrefetch(const Stmt& loop) {
  const std::string n = "t" + std::to_string(loop.tiles[0]);
  line("if constexpr (PIPE) {");
  ++indent_;
  line("const int64 next_" + n + " = tb_" + n + " + " + std::to_string(tileBlockSize(loop.tiles[0])) +
       ";");
  emitPipelineCopies(loop, "next_" + n, "pipe_stage ^ 1");
  --indent_;
  line("}");
}

} // namespace helion::codegen
