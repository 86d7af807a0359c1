//===- ConfigJson.cpp - One config object <-> Config ----------------------===//
//
// Reading is lenient in one way only: an entry with the wrong JSON type is reported
// and replaced by the default's entry, so that validate() still checks the rest and
// the user sees every error at once.
//===----------------------------------------------------------------------===//
#include "ParseConfig.h"
#include "helion/Config/ConfigJson.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace helion::config {

using json = nlohmann::json;

namespace {

const std::vector<std::string>& knownKeys() {
  static const std::vector<std::string> keys = {
      "block_sizes", "loop_orders", "l2_groupings", "reduction_loops",
      "range_unroll_factors", "num_warps", "num_stages", "pid_type",
      "num_sm_multiplier", "maxnreg", "indexing", "load_eviction_policies", "vector_bytes"};
  return keys;
}
const std::vector<std::string> kLegacyKeys = {"l2_grouping", "use_yz_grid"};

class Reader {
public:
  Reader(const json& j, const ConfigSpec& spec, const std::string& source,
         const std::string& prefix, std::vector<std::string>& errors)
      : j_(j), spec_(spec), source_(source), prefix_(prefix), errors_(errors),
        c_(spec.defaultConfig()), defaults_(c_) {}

  std::optional<Config> run() {
    size_t before = errors_.size();
    if (!j_.is_object()) {
      error("", fmt::format("expected a config object, got {}", shortDump(j_)));
      return std::nullopt;
    }
    unknownKeys();
    readBlockSizes();
    readList("loop_orders", c_.loopOrders, defaults_.loopOrders,
             [&](const json& e, const std::string& path, std::vector<int>& out) {
               if (!e.is_array())
                 return typeError(path, "a list of tile positions", e);
               bool ok = true;
               std::vector<int> order;
               for (size_t k = 0; k < e.size(); ++k) {
                 int64_t v = 0;
                 std::string at = fmt::format("{}[{}]", path, k);
                 ok = readInt(e[k], at, v) && ok;
                 order.push_back(clampInt(v, -1, 1 << 20, at, e[k]));
               }
               if (ok) // else keep the default order: the bad entry is reported once
                 out = std::move(order);
               return ok;
             });
    readL2Groupings();
    readList("reduction_loops", c_.reductionLoops, defaults_.reductionLoops,
             [&](const json& e, const std::string& path, std::optional<int64_t>& out) {
               if (e.is_null()) {
                 out = std::nullopt;
                 return true;
               }
               int64_t v = 0;
               if (!isInt(e))
                 return typeError(path, "null or an integer", e);
               readInt(e, path, v);
               out = v;
               return true;
             });
    readIntList("range_unroll_factors", c_.rangeUnrollFactors, defaults_.rangeUnrollFactors);
    readScalarInt("num_warps", c_.numWarps);
    readScalarInt("num_stages", c_.numStages);
    readPidType();
    readScalarInt("num_sm_multiplier", c_.numSmMultiplier);
    if (const json* e = find("maxnreg")) {
      int64_t v = 0;
      if (e->is_null())
        c_.maxnreg.reset();
      else if (isInt(*e) && readInt(*e, "maxnreg", v))
        c_.maxnreg = clampInt(v, -1, 1 << 20, "maxnreg", *e);
      else if (!isInt(*e))
        typeError("maxnreg", "null or an integer", *e);
    }
    readIndexing();
    readList("load_eviction_policies", c_.loadEvictionPolicies, defaults_.loadEvictionPolicies,
             [&](const json& e, const std::string& path, EvictionPolicy& out) {
               return readEnum(e, path, out, parseEvictionPolicy, "'', 'first', 'last'");
             });
    readScalarInt("vector_bytes", c_.vectorBytes);

    for (ConfigError& err : validate(c_, spec_)) {
      remapLegacy(err);
      restoreWritten(err);
      error(err.path(), err.rule);
    }
    if (errors_.size() != before)
      return std::nullopt;
    return c_;
  }

private:
  const json& j_;
  const ConfigSpec& spec_;
  const std::string& source_;
  const std::string& prefix_;
  std::vector<std::string>& errors_;
  Config c_;
  const Config defaults_;
  std::vector<std::pair<int, int>> blockSizePaths_; // flattened index -> [outer][inner]
  bool legacyL2_ = false, legacyYz_ = false;
  /// Path -> (the clamped value, the value as written) of integers clamped into int.
  std::map<std::string, std::pair<std::string, std::string>> written_;

  int clampInt(int64_t v, int64_t lo, int64_t hi, const std::string& path, const json& e) {
    int64_t clamped = std::clamp(v, lo, hi);
    if (clamped != v)
      written_[path] = {std::to_string(clamped), shortDump(e)};
    return static_cast<int>(clamped);
  }

  /// validate() sees clamped values; its messages name the values the user wrote:
  /// `num_warps: ... got 1099511627776`, not 1073741824.
  void restoreWritten(ConfigError& err) const {
    const std::string path = err.path();
    for (const auto& [at, values] : written_) {
      if (path.empty() || at.rfind(path, 0) != 0)
        continue;
      const auto& [clamped, asWritten] = values;
      for (size_t pos = err.rule.find(clamped); pos != std::string::npos;
           pos = err.rule.find(clamped, pos + 1)) {
        auto isNumberChar = [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || c == '-';
        };
        size_t end = pos + clamped.size();
        if ((pos > 0 && isNumberChar(err.rule[pos - 1])) ||
            (end < err.rule.size() && isNumberChar(err.rule[end])))
          continue;
        err.rule.replace(pos, clamped.size(), asWritten);
        break;
      }
    }
  }

  void error(const std::string& path, const std::string& rule) {
    errors_.push_back(configMessage(source_, prefix_, path, rule));
  }

  bool typeError(const std::string& path, const char* expected, const json& got) {
    error(path, fmt::format("expected {}, got {}", expected, shortDump(got)));
    return false;
  }

  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }

  static bool isInt(const json& e) { return e.is_number_integer() || e.is_number_unsigned(); }

  bool readInt(const json& e, const std::string& path, int64_t& out) {
    if (!isInt(e))
      return typeError(path, "an integer", e);
    if (e.is_number_unsigned() && e.get<uint64_t>() > uint64_t{1} << 62)
      return typeError(path, "an integer below 2^62", e);
    out = e.get<int64_t>();
    return true;
  }

  template <class T> bool readIntAs(const json& e, const std::string& path, T& out) {
    int64_t v = 0;
    if (!readInt(e, path, v))
      return false;
    // Values beyond int's range are out of every range; keep them out of range.
    if constexpr (std::is_same_v<T, int64_t>)
      out = v;
    else
      out = static_cast<T>(clampInt(v, -(int64_t{1} << 30), int64_t{1} << 30, path, e));
    return true;
  }

  bool readBool(const json& e, const std::string& path, std::vector<bool>::reference out) {
    if (!e.is_boolean())
      return typeError(path, "true or false", e);
    out = e.get<bool>();
    return true;
  }

  template <class E, class ParseFn>
  bool readEnum(const json& e, const std::string& path, E& out, ParseFn parse, const char* names) {
    std::optional<E> v = e.is_string() ? parse(e.get<std::string>()) : std::nullopt;
    if (!v) {
      error(path, fmt::format("expected one of {}, got {}", names, shortDump(e)));
      return false;
    }
    out = *v;
    return true;
  }

  /// A list whose entries `read(entry, path, out)` converts; bad entries keep the default's.
  template <class T, class ReadFn>
  void readList(const char* key, std::vector<T>& out, const std::vector<T>& defaults, ReadFn read) {
    const json* e = find(key);
    if (!e)
      return;
    if (!e->is_array()) {
      typeError(key, "a list", *e);
      return;
    }
    out.assign(e->size(), T{});
    for (size_t i = 0; i < e->size(); ++i) {
      if (i < defaults.size())
        out[i] = defaults[i];
      read((*e)[i], fmt::format("{}[{}]", key, i), out[i]);
    }
  }

  void readIntList(const char* key, std::vector<int>& out, const std::vector<int>& defaults) {
    readList(key, out, defaults, [&](const json& e, const std::string& path, int& v) {
      return readIntAs(e, path, v);
    });
  }

  void readScalarInt(const char* key, int& out) {
    if (const json* e = find(key))
      readIntAs(*e, key, out);
  }

  void unknownKeys() {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      const std::string& key = it.key();
      const auto& known = knownKeys();
      if (std::find(known.begin(), known.end(), key) != known.end() ||
          std::find(kLegacyKeys.begin(), kLegacyKeys.end(), key) != kLegacyKeys.end())
        continue;
      if (key == "flatten_loops" || key == "range_num_stages") {
        error("", fmt::format("'{}' is not a config key: it never changed the generated code, "
                              "and was removed",
                              key));
        continue;
      }
      std::string rule = fmt::format("unknown key '{}'", shortText(key));
      if (auto near = nearestName(key, known))
        rule += fmt::format("; did you mean '{}'?", *near);
      error("", rule);
    }
  }

  /// `[64, 128, 16]` or the older nested spelling `[[64, 128], [16]]`.
  void readBlockSizes() {
    const json* e = find("block_sizes");
    if (!e)
      return;
    if (!e->is_array()) {
      typeError("block_sizes", "a list", *e);
      return;
    }
    c_.blockSizes.clear();
    auto push = [&](const json& v, int outer, int inner) {
      size_t i = c_.blockSizes.size();
      int64_t value = i < defaults_.blockSizes.size() ? defaults_.blockSizes[i] : 1;
      std::string path = inner < 0 ? fmt::format("block_sizes[{}]", outer)
                                   : fmt::format("block_sizes[{}][{}]", outer, inner);
      readInt(v, path, value);
      c_.blockSizes.push_back(value);
      blockSizePaths_.push_back({outer, inner});
    };
    for (size_t i = 0; i < e->size(); ++i) {
      const json& v = (*e)[i];
      if (!v.is_array()) {
        push(v, static_cast<int>(i), -1);
        continue;
      }
      for (size_t k = 0; k < v.size(); ++k)
        push(v[k], static_cast<int>(i), static_cast<int>(k));
    }
  }

  void readL2Groupings() {
    readIntList("l2_groupings", c_.l2Groupings, defaults_.l2Groupings);
    const json* legacy = find("l2_grouping");
    if (!legacy)
      return;
    if (find("l2_groupings")) {
      error("l2_grouping", "cannot be combined with 'l2_groupings'");
      return;
    }
    int v = 1;
    if (!readIntAs(*legacy, "l2_grouping", v))
      return;
    if (spec_.l2Loops.empty()) {
      if (v != 1)
        error("l2_grouping",
              fmt::format("expected 1: the kernel has no grid loop of 2 or more tiles, got {}", v));
      return;
    }
    c_.l2Groupings[0] = v;
    legacyL2_ = true;
  }

  void readPidType() {
    if (const json* e = find("pid_type"))
      readEnum(*e, "pid_type", c_.pidType, parsePidType,
               "'flat', 'xyz', 'persistent_blocked', 'persistent_interleaved'");
    const json* yz = find("use_yz_grid");
    if (!yz)
      return;
    if (!yz->is_boolean()) {
      typeError("use_yz_grid", "true or false", *yz);
      return;
    }
    if (!yz->get<bool>())
      return;
    if (find("pid_type") && c_.pidType != PidType::Xyz) {
      error("use_yz_grid",
            fmt::format("conflicts with pid_type '{}'", pidTypeName(c_.pidType)));
      return;
    }
    c_.pidType = PidType::Xyz;
    legacyYz_ = !find("pid_type");
  }

  /// One string for every site, or a list with one per site.
  void readIndexing() {
    const json* e = find("indexing");
    if (!e)
      return;
    const char* names = "'pointer', 'block_ptr', 'tensor_descriptor'";
    if (e->is_string()) {
      Indexing v = Indexing::Pointer;
      if (readEnum(*e, "indexing", v, parseIndexing, names))
        c_.indexing.assign(spec_.numSites, v);
      return;
    }
    readList("indexing", c_.indexing, defaults_.indexing,
             [&](const json& x, const std::string& path, Indexing& out) {
               return readEnum(x, path, out, parseIndexing, names);
             });
  }

  /// Errors about entries the user spelled the legacy way name what the user wrote.
  void remapLegacy(ConfigError& err) const {
    if (err.key == "block_sizes" && err.index >= 0 &&
        err.index < static_cast<int>(blockSizePaths_.size())) {
      auto [outer, inner] = blockSizePaths_[err.index];
      err.index = outer;
      err.sub = inner;
    } else if (legacyL2_ && err.key == "l2_groupings" && err.index == 0) {
      err.key = "l2_grouping";
      err.index = -1;
    } else if (legacyYz_ && err.key == "pid_type") {
      err.key = "use_yz_grid";
    }
  }
};

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// [64, 128] -> "[64, 128]": JSON with a space after each comma, for one-line configs.
std::string compact(const nlohmann::ordered_json& j) {
  if (j.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < j.size(); ++i)
      s += (i ? ", " : "") + compact(j[i]);
    return s + "]";
  }
  if (j.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      s += (first ? "" : ", ") + json(it.key()).dump() + ": " + compact(it.value());
      first = false;
    }
    return s + "}";
  }
  return j.dump();
}

} // namespace

std::string shortText(const std::string& text) {
  constexpr size_t kMax = 60;
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

std::string shortDump(const json& j) { return shortText(j.dump()); }

std::string configMessage(const std::string& source, const std::string& prefix,
                          const std::string& path, const std::string& rule) {
  std::string where = prefix;
  if (!path.empty())
    where += (where.empty() || path[0] == '[' ? "" : ".") + path;
  return where.empty() ? fmt::format("{}: {}", source, rule)
                       : fmt::format("{}: {}: {}", source, where, rule);
}

std::optional<std::string> nearestName(const std::string& word,
                                       const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t bestDistance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = editDistance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

std::optional<Config> parseConfigAt(const json& j, const ConfigSpec& spec, const std::string& source,
                                    const std::string& prefix, std::vector<std::string>& errors) {
  return Reader(j, spec, source, prefix, errors).run();
}

Parsed<Config> parseConfig(const json& j, const ConfigSpec& spec, const std::string& sourceName) {
  Parsed<Config> out;
  out.value = parseConfigAt(j, spec, sourceName, "", out.errors);
  return out;
}

nlohmann::ordered_json toJson(const Config& c, const ConfigSpec& spec) {
  nlohmann::ordered_json j;
  j["block_sizes"] = c.blockSizes;
  if (!spec.multiTileLoops.empty()) {
    j["loop_orders"] = c.loopOrders;
  }
  if (!spec.l2Loops.empty())
    j["l2_groupings"] = c.l2Groupings;
  if (!spec.reductionLoops.empty()) {
    nlohmann::ordered_json r = nlohmann::ordered_json::array();
    for (const auto& v : c.reductionLoops)
      r.push_back(v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr));
    j["reduction_loops"] = r;
  }
  if (!spec.unrollLoops.empty())
    j["range_unroll_factors"] = c.rangeUnrollFactors;
  j["num_warps"] = c.numWarps;
  if (spec.hasNumStages())
    j["num_stages"] = c.numStages;
  j["pid_type"] = pidTypeName(c.pidType);
  if (spec.hasNumSmMultiplier())
    j["num_sm_multiplier"] = c.numSmMultiplier;
  if (c.maxnreg && spec.hasMaxnreg())
    j["maxnreg"] = *c.maxnreg;
  bool uniform = std::all_of(c.indexing.begin(), c.indexing.end(),
                             [&](Indexing i) { return i == c.indexing.front(); });
  if (c.indexing.empty() || (uniform && static_cast<int>(c.indexing.size()) == spec.numSites)) {
    j["indexing"] = indexingName(c.indexing.empty() ? Indexing::Pointer : c.indexing.front());
  } else {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (Indexing i : c.indexing)
      list.push_back(indexingName(i));
    j["indexing"] = list;
  }
  if (spec.numLoadSites > 0) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (EvictionPolicy e : c.loadEvictionPolicies)
      list.push_back(evictionPolicyName(e));
    j["load_eviction_policies"] = list;
  }
  if (spec.hasVectorBytes())
    j["vector_bytes"] = c.vectorBytes;
  return j;
}

std::string formatConfig(const Config& config, const ConfigSpec& spec) {
  return compact(toJson(config, spec));
}

} // namespace helion::config
