//===- ApplyConfig.cpp - Block sizes resolved once, into the IR ------------===//
//
// The first pass that reads the config. Every block-size declaration gets the size
// this config gives it (config::resolveBlockSize: the source's fixed value, else its
// entry of block_sizes), and the passes and emitters after it read
// BlockSizeDecl::chosen instead of indexing block_sizes themselves:
//
//   block_sizes: bs0(tm, hint %m)                 // before
//   block_sizes: bs0(tm, hint %m) = 4 (block_sizes[0])   // after, with block_sizes [4]
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
  return out;
}

} // namespace helion::ir
