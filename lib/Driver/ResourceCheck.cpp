//===- ResourceCheck.cpp - Configs too large to compile --------------------===//
//
// The estimate is config::estimateUnrolledSize (helion/Config/UnrolledSize.h), shared
// with the tuner's candidates, which never include a config this check refuses.
//===----------------------------------------------------------------------===//
#include "ResourceCheck.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace helion::driver {

bool checkUnrolledSize(const ir::Kernel& kernel, const config::Config& config, int numThreads,
                       const std::string& variant, DiagnosticEngine& diags) {
  UnrolledSize size = estimateUnrolledSize(kernel, config, numThreads);
  if (size.ops <= kMaxUnrolledOps)
    return true;
  std::vector<std::string> reductionLoops;
  for (const auto& r : config.reductionLoops)
    reductionLoops.push_back(r ? std::to_string(*r) : "null");
  std::string chunks =
      reductionLoops.empty()
          ? ""
          : fmt::format(", reduction_loops [{}]", fmt::join(reductionLoops, ", "));
  diags.error(size.loop->loc,
              fmt::format("config too large to compile{}: this loop's body unrolls to about {} "
                          "operations per thread (up to {} elements each), more than {} "
                          "(block_sizes [{}]{}, num_warps {}: {} threads); lower block_sizes{} or "
                          "raise num_warps",
                          variant.empty() ? "" : " " + variant, size.ops, size.elems,
                          kMaxUnrolledOps, fmt::join(config.blockSizes, ", "),
                          chunks,
                          config.numWarps, numThreads,
                          reductionLoops.empty() ? "" : " or reduction_loops"));
  return false;
}

} // namespace helion::driver
