//===- helion/Tune/TunedFile.h - Merging results into a config file -*- C++ -*-===//
//
// `helionc tune -o best.json` adds its results to the file instead of replacing it:
// entries for other kernels, other shapes and other dtypes are kept, an entry for the
// same kernel, shapes and dtypes is replaced in place, new ones are appended. Any of
// the forms of configs/README.md is read; the output is
//
//   {"configs": [{"kernel": "softmax", "shapes": {"x": [4096, 4096]},
//                 "dtypes": {"x": "bf16"}, "config": {...}}]}
//
// for one kernel (entries keep their kernel's name, so that a later merge of another
// kernel's results knows whose they are), and
//
//   {"kernels": {"softmax": {"configs": [...]}, "matmul": {"configs": [...]}}}
//
// for several. Config objects are copied as they are (the merge has no spec of other
// kernels); parseConfigFile() checks them when the file is used. Entries in a file
// that names no kernel (a bare config, a `configs` list without `kernel`) are taken
// to be `untaggedKernel`'s.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigJson.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace helion::tune {

/// One tuned config to put into a file.
struct TunedEntry {
  std::string kernel;
  nlohmann::json shapes = nlohmann::json::object(); ///< ArgSpec::shapeKey(); {} = none
  nlohmann::ordered_json config;                    ///< config::toJson()
  /// `config` is a list of configs for the launcher to choose from at run time: the
  /// entry is written as `"choose": [...]` (configs/README.md).
  bool choose = false;
  nlohmann::json dtypes = nlohmann::json::object(); ///< ArgSpec::dtypeKey(); {} = any
};

/// The merged file. `existing` is the current file's JSON (nullopt when there is
/// none). Errors (a file whose structure is not one of the forms: `best.json:
/// configs[1]: missing key 'config' (or 'choose')`) leave no value: the caller must not overwrite it.
config::Parsed<nlohmann::ordered_json>
mergeTunedFile(const std::optional<nlohmann::ordered_json> &existing,
               const std::vector<TunedEntry> &results, const std::string &untaggedKernel,
               const std::string &sourceName);

/// Reads `path` if it exists, merges `results` into it and writes it atomically.
/// Returns the errors (unreadable or malformed file, write failure); the file is left
/// as it was when there are any.
std::vector<std::string> updateTunedFile(const std::filesystem::path &path,
                                         const std::vector<TunedEntry> &results,
                                         const std::string &untaggedKernel);

} // namespace helion::tune
