//===- helion/Config/BlockSizes.h - A config's block size of each tile -*- C++ -*-===//
//
// A kernel declares block sizes (hl::register_block_size, or one per tile loop); the
// ones the source fixes are not in the config, the others are its `block_sizes`, in
// declaration order. The emitter, the size estimate of candidates, the matmul and
// attention plans and the host code all read a tile's block size through here.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/Config.h"
#include "helion/IR/IR.h"

#include <optional>
#include <vector>

namespace helion::config {

/// The value of block-size declaration `blockSize` (an index into kernel.blockSizes)
/// under `config`, and its index in `block_sizes` (nullopt when the source fixes it).
/// A tunable size the config lacks counts as 64.
struct BlockSizeValue {
  int64_t value = 64;
  std::optional<size_t> configIndex;
};
BlockSizeValue blockSizeValue(const ir::Kernel& kernel, const Config& config, int blockSize);

/// The block size of tile `tile` (an index into kernel.tiles): 1 for a grid tile (one
/// program per index), else its declaration's value.
int64_t tileBlockSize(const ir::Kernel& kernel, const Config& config, int tile);

/// Every declaration's value, in declaration order (what the host code's
/// hl::register_block_size calls return).
std::vector<int64_t> blockSizeValues(const ir::Kernel& kernel, const Config& config);

} // namespace helion::config
