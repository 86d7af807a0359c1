//===- helion/Config/ConfigJson.h - Configs and config files in JSON -*- C++ -*-===//
//
// JSON <-> Config with Helion's key names, and config files holding several configs
// keyed by kernel and by the shapes they were tuned for (format: configs/README.md).
// Errors are complete (every problem, not the first) and read
// `best.json: block_sizes[1]: expected a power of two, got 48`.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helion::config {

/// A value or the errors that prevented it.
template <class T> struct Parsed {
  std::optional<T> value;
  std::vector<std::string> errors; ///< "best.json: path: rule", in key order
  bool ok() const { return value.has_value(); }
};

/// One config object: Helion's keys, plus the legacy `l2_grouping` (an int for the
/// first grid loop), `use_yz_grid` (true = pid_type xyz) and nested `block_sizes`
/// (`[[64, 128], [16]]`, flattened in order). Missing keys take the default config's
/// value. Unknown keys are errors.
Parsed<Config> parseConfig(const nlohmann::json& j, const ConfigSpec& spec,
                           const std::string& sourceName);

/// Every key of the kernel's spec, in Helion's order (keys the spec does not list, such
/// as a matmul's `maxnreg`, are left out); `indexing` is one string when all sites
/// agree; `maxnreg` only when set. parseConfig(toJson(c)) == c when the keys left out
/// hold the default config's values (always so in canonical configs).
nlohmann::ordered_json toJson(const Config& config, const ConfigSpec& spec);

/// toJson() printed on one line (`{"block_sizes": [64, 64], ...}`).
std::string formatConfig(const Config& config, const ConfigSpec& spec);

/// Tensor name -> sizes, e.g. {"x": {4096, 4096}}.
using Shapes = std::map<std::string, std::vector<int64_t>>;

/// Tensor name -> dtype name as `--dtype` spells it, e.g. {"x": "bf16"}.
using Dtypes = std::map<std::string, std::string>;

/// The dtype names a `"dtypes"` key may give (helion::DType's, as `--dtype` spells them).
const std::vector<std::string>& dtypeNames();

/// The configs a file holds for one kernel. `shapes` is empty for a config that was
/// not tuned for particular shapes, `dtypes` for one that serves any dtypes.
struct ShapedConfig {
  Shapes shapes;
  Config config;
  /// An entry with `"choose": [c0, c1, ...]` becomes one ShapedConfig per candidate,
  /// consecutive, with the same shapes and `choice` 0, 1, ...: the launcher times them
  /// on the first call for each shape (configs/README.md). -1 for a `"config"` entry.
  int choice = -1;
  Dtypes dtypes = {};
};
struct ConfigFile {
  std::vector<ShapedConfig> entries; ///< in file order; never empty once parsed
};

/// Parses the text of a config file. nlohmann keeps the last of repeated keys
/// silently; here every key repeated inside one object is an error naming the
/// object's path (`tuned.json: configs[0].config: duplicate key 'num_warps'`),
/// and the result is nullopt. Malformed JSON, a number out of range (1e400) and
/// objects or lists nested deeper than kMaxJsonDepth throw nlohmann::json::parse_error,
/// whose byte offset locates it; the depth is checked before any parsing.
inline constexpr size_t kMaxJsonDepth = 64;
/// Most candidates of one `"choose"` entry (each is compiled and timed once per shape).
inline constexpr size_t kMaxChoiceCandidates = 8;
std::optional<nlohmann::json> parseJsonText(const std::string& text, const std::string& sourceName,
                                            std::vector<std::string>& errors);

/// Reads any of the file forms for `spec.kernelName`: one config object;
/// `{"configs": [{"shapes": {...}, "dtypes": {...}?, "config": {...}, "kernel": "name"?},
/// ...]}` (an entry may have `"choose": [{...}, ...]`, 2 to kMaxChoiceCandidates configs,
/// instead of `config`);
/// `{"kernels": {"name": <either form>}}`.
Parsed<ConfigFile> parseConfigFile(const nlohmann::json& j, const ConfigSpec& spec,
                                   const std::string& sourceName);

/// The entry for `shapes` and `dtypes`: an exact match, else the shaped entry nearest by
/// the sum over dims of |log2(size / tuned size)| (entries naming other tensors or
/// ranks do not compete), else the first entry without shapes, else the first entry.
/// An entry with dtypes competes only when each tensor it names has that dtype in
/// `dtypes`. Ties: file order.
const ShapedConfig& selectConfig(const ConfigFile& file, const Shapes& shapes,
                                 const Dtypes& dtypes = {});

/// The distance selectConfig() uses: sum over the dims of |log2(query / tuned)| (sizes
/// below 1 count as 1); nullopt unless every tensor of `tuned` is in `query` with the
/// same rank. Example: query x=[4096, 1024], tuned x=[4096, 4096] -> 2.
std::optional<double> shapeDistance(const Shapes& query, const Shapes& tuned);

/// The nearest of `candidates` to `word` by edit distance, if near enough to suggest
/// (`did you mean 'block_sizes'?`).
std::optional<std::string> nearestName(const std::string& word,
                                       const std::vector<std::string>& candidates);

} // namespace helion::config
