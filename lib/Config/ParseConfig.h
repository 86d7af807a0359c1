//===- ParseConfig.h - Reading one config object (private) -----*- C++ -*-===//
#pragma once

#include "helion/Config/ConfigSpec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace helion::config {

/// parseConfig() for an object found at `prefix` inside a file ("" at the top level,
/// "configs[1].config", "kernels.softmax"); appends errors, returns nullopt if any.
std::optional<Config> parseConfigAt(const nlohmann::json& j, const ConfigSpec& spec,
                                    const std::string& source, const std::string& prefix,
                                    std::vector<std::string>& errors);

/// `source: prefix.path: rule`, leaving out the empty parts.
std::string configMessage(const std::string& source, const std::string& prefix,
                          const std::string& path, const std::string& rule);

/// `text` cut to its first 60 characters and "...", so that no message echoes a
/// whole megabyte-long value.
std::string shortText(const std::string& text);

/// shortText() of the value's JSON text.
std::string shortDump(const nlohmann::json& j);

} // namespace helion::config
