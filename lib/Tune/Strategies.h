//===- Strategies.h - The search strategies (private) -----------*- C++ -*-===//
#pragma once

#include "helion/Tune/Search.h"

namespace helion::tune {

/// PatternSearch.cpp: hill climbing over neighbors(), restarting from random configs.
std::unique_ptr<Search> makePatternSearch(const config::ConfigSpec &spec, SearchOptions options);
/// DifferentialEvolution.cpp: DE/rand/1/bin over the genes of SearchSpace.
std::unique_ptr<Search> makeDifferentialEvolution(const config::ConfigSpec &spec,
                                                  SearchOptions options);
/// RandomSearch.cpp: randomConfig() draws.
std::unique_ptr<Search> makeRandomSearch(const config::ConfigSpec &spec, SearchOptions options);

} // namespace helion::tune
