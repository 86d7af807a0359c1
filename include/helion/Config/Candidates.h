//===- helion/Config/Candidates.h - Configs for the tuner to try -*- C++ -*-===//
#pragma once

#include "helion/Config/ConfigSpec.h"

#include <random>
#include <vector>

namespace helion::config {

/// Every valid config that differs from `config` in one entry by one step: a block size
/// x2 or /2, num_warps x2 or /2, num_stages +-1, a reduction persistent <-> looped or its
/// chunk x2 or /2, another pid_type, indexing (all sites, and each site), a loop order
/// (swap of two neighbours), flatten toggled, l2 grouping x2 or /2, vector bytes, ...
/// No duplicates; `config` itself is not among them.
std::vector<Config> neighbors(const Config& config, const ConfigSpec& spec);

/// A valid config with every entry drawn uniformly from its legal values.
Config randomConfig(const ConfigSpec& spec, std::mt19937_64& rng);

} // namespace helion::config
