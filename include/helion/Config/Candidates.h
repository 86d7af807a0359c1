//===- helion/Config/Candidates.h - Configs for the tuner to try -*- C++ -*-===//
//
// The tuner proposes only configs that compile and that differ in generated code:
// candidates pass isCandidate() and are in canonical form (canonicalize()). The
// configs.random test (test/configs/random_configs.py) draws them as the tuner does
// and holds both promises to the emitter's output.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"

#include <random>
#include <vector>

namespace helion::config {

/// Whether the tuner may propose `config`: it follows every rule of validate() and,
/// in a kernel without hl::dot, fits the candidates' size limits (UnrolledSize.h:
/// the emitter's own, "config too large to compile", and no value of more than 256
/// elements per thread).
bool isCandidate(const Config& config, const ConfigSpec& spec);

/// The config that generates the same code as `config` with every entry that has no
/// effect there set to the default config's value, and every value that acts as
/// another set to that one (Canonical.cpp lists the rules). Idempotent; the default
/// config is canonical; canonicalize(c) == canonicalize(d) when c and d differ only
/// in entries without effect.
Config canonicalize(const Config& config, const ConfigSpec& spec);

/// Every canonical candidate that differs from canonicalize(config) in one entry by one
/// step: a block size x2 or /2, num_warps x2 or /2 (and 8 <-> 12 where 12 is legal),
/// num_stages +-1, a reduction persistent <-> looped or its chunk x2 or /2, another
/// pid_type, indexing (all sites, and each site), a loop order (swap of two
/// neighbours), l2 grouping x2 or /2, vector bytes, ...; and, in a persistent
/// program, staging (block_ptr on every stageable load with num_stages 2), whose
/// two entries have no effect one without the other. No duplicates; the config
/// itself is not among them.
std::vector<Config> neighbors(const Config& config, const ConfigSpec& spec);

/// A canonical candidate with every entry drawn uniformly from its legal values
/// (drawn again until one is a candidate; the default config after 2000 draws).
Config randomConfig(const ConfigSpec& spec, std::mt19937_64& rng);

} // namespace helion::config
