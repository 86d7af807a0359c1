//===- BlockSizes.cpp - Which block size a config gives --------------------===//
#include "helion/Config/BlockSizes.h"

namespace helion::config {

ResolvedBlockSize resolveBlockSize(const ir::Kernel& kernel, const Config& config, int id) {
  const ir::BlockSizeDecl& d = kernel.blockSizes.at(static_cast<size_t>(id));
  if (d.fixed)
    return {*d.fixed, -1};
  // block_sizes holds the tunable sizes only, in declaration order: [fixed 16, tunable,
  // tunable] has block_sizes[0] for the second declaration and [1] for the third.
  int tunable = 0;
  for (const ir::BlockSizeDecl& b : kernel.blockSizes) {
    if (b.id == d.id)
      break;
    tunable += !b.fixed;
  }
  const size_t i = static_cast<size_t>(tunable);
  return {i < config.blockSizes.size() ? config.blockSizes[i] : 64, tunable};
}

int64_t tileBlockSize(const ir::Kernel& kernel, const Config& config, int tile) {
  const ir::TileVar& t = kernel.tiles.at(static_cast<size_t>(tile));
  return t.isGrid ? 1 : resolveBlockSize(kernel, config, t.blockSize).value;
}

std::vector<int64_t> blockSizeValues(const ir::Kernel& kernel, const Config& config) {
  std::vector<int64_t> out;
  for (const ir::BlockSizeDecl& b : kernel.blockSizes)
    out.push_back(resolveBlockSize(kernel, config, b.id).value);
  return out;
}

std::optional<ir::MmaPlan> planMmaFor(const ir::Kernel& kernel, const Config& config,
                                      std::optional<int> numStages) {
  return ir::planMma(
      kernel, [&](int tile) { return tileBlockSize(kernel, config, tile); }, config.numWarps,
      numStages.value_or(config.numStages));
}

} // namespace helion::config
