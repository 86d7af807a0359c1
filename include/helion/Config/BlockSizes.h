//===- helion/Config/BlockSizes.h - Which block size a config gives ---*- C++ -*-===//
//
// The one rule that maps the config's `block_sizes` onto a kernel's block-size
// declarations. The apply-config pass writes its result into the IR
// (BlockSizeDecl::chosen), and everything after the pass reads it from there; code
// that runs before any pass (the launcher's register_block_size values, the
// candidate filter's size estimate) calls it directly.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/Config.h"
#include "helion/IR/IR.h"
#include "helion/IR/MmaPlan.h"

#include <optional>

#include <vector>

namespace helion::config {

struct ResolvedBlockSize {
  int64_t value = 64;
  int configIndex = -1; ///< its entry of block_sizes; -1 when the source fixes it
};

/// Block size `id` of `kernel` under `config`: its fixed value when the source fixes
/// it, else entry i of block_sizes where i counts the tunable declarations before it,
/// else 64 (a config with too few entries; validation reports those).
ResolvedBlockSize resolveBlockSize(const ir::Kernel& kernel, const Config& config, int id);

/// The block size tile `tile` iterates by: 1 for hl::grid, else its declaration's.
int64_t tileBlockSize(const ir::Kernel& kernel, const Config& config, int tile);

/// ir::planMma at `config`'s block sizes and warps, with `numStages` (the config's own
/// unless given): the mma-layout pass's decision as the config checks see it.
std::optional<ir::MmaPlan> planMmaFor(const ir::Kernel& kernel, const Config& config,
                                      std::optional<int> numStages = std::nullopt);

/// Every declaration's value, in declaration order (what the host code's
/// hl::register_block_size calls return).
std::vector<int64_t> blockSizeValues(const ir::Kernel& kernel, const Config& config);

} // namespace helion::config
