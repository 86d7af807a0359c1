//===- BlockSizes.cpp - A config's block size of each tile -----------------===//
#include "helion/Config/BlockSizes.h"

namespace helion::config {

BlockSizeValue blockSizeValue(const ir::Kernel& kernel, const Config& config, int blockSize) {
  const ir::BlockSizeDecl& d = kernel.blockSizes.at(static_cast<size_t>(blockSize));
  if (d.fixed)
    return {*d.fixed, std::nullopt};
  // block_sizes lists the tunable declarations only: [fixed 16, tunable, tunable] has
  // block_sizes[0] for the second declaration and block_sizes[1] for the third.
  size_t tunable = 0;
  for (const ir::BlockSizeDecl& b : kernel.blockSizes) {
    if (b.id == d.id)
      break;
    tunable += !b.fixed;
  }
  return {tunable < config.blockSizes.size() ? config.blockSizes[tunable] : 64, tunable};
}

int64_t tileBlockSize(const ir::Kernel& kernel, const Config& config, int tile) {
  const ir::TileVar& t = kernel.tiles.at(static_cast<size_t>(tile));
  if (t.isGrid)
    return 1;
  return blockSizeValue(kernel, config, t.blockSize).value;
}

std::vector<int64_t> blockSizeValues(const ir::Kernel& kernel, const Config& config) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < kernel.blockSizes.size(); ++i)
    out.push_back(blockSizeValue(kernel, config, static_cast<int>(i)).value);
  return out;
}

} // namespace helion::config
