//===- ApplyConfig.cpp - Block sizes and reduction loops resolved, into the IR ===//
//
// The first pass that reads the config. Every block-size declaration gets the size
// this config gives it (config::resolveBlockSize: the source's fixed value, else its
// entry of block_sizes), and every reduction axis its entry of reduction_loops
// (persistent when the entry is null or missing), so the passes and emitters after it
// read BlockSizeDecl::chosen and Axis::loopChunk instead of indexing the config:
//
//   block_sizes: bs0(tm, hint %m)                 // before
//   block_sizes: bs0(tm, hint %m) = 4 (block_sizes[0])   // after, with block_sizes [4]
//   axes: a0(%x.size(1)) looped 1024              // after, with reduction_loops [1024]
//===----------------------------------------------------------------------===//
#include "helion/Config/BlockSizes.h"
#include "helion/Transforms/Passes.h"

namespace helion::ir {

Kernel applyConfig(const Kernel& kernel, PassContext& ctx) {
  Kernel out = kernel;
  for (BlockSizeDecl& b : out.blockSizes) {
    config::ResolvedBlockSize r = config::resolveBlockSize(kernel, *ctx.config, b.id);
    b.chosen = r.value;
    b.configIndex = r.configIndex;
  }
  const auto& loops = ctx.config->reductionLoops;
  for (Axis& a : out.axes)
    a.loopChunk = a.id < static_cast<int>(loops.size()) && loops[a.id] ? *loops[a.id] : 0;
  return out;
}

} // namespace helion::ir
