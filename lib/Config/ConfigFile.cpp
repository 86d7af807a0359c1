//===- ConfigFile.cpp - Files of configs keyed by kernel and shape ---------===//
//
// The three forms (configs/README.md): a config object; {"configs": [...]} with
// one entry per tuned shape (and dtypes); {"kernels": {"name": <either>}}. At run time
// the generated host code picks an entry by shape the way selectConfig() does.
//===----------------------------------------------------------------------===//
#include "ParseConfig.h"
#include "helion/Config/ConfigJson.h"
#include "helion/runtime/ShapeDispatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace helion::config {

using json = nlohmann::json;

namespace {

std::string join(const std::string& prefix, const std::string& part) {
  if (prefix.empty())
    return part;
  return part.empty() || part[0] == '[' ? prefix + part : prefix + "." + part;
}

class FileReader {
public:
  FileReader(const ConfigSpec& spec, const std::string& source, std::vector<std::string>& errors)
      : spec_(spec), source_(source), errors_(errors) {}

  ConfigFile file;

  void top(const json& j) {
    if (!j.is_object()) {
      error("", "", fmt::format("expected a config object, got {}", shortDump(j)));
      return;
    }
    if (!j.contains("kernels")) {
      form(j, "");
      return;
    }
    if (j.size() != 1) {
      onlyKeys(j, "", {"kernels"});
      return;
    }
    const json& kernels = j["kernels"];
    if (!kernels.is_object()) {
      error("kernels", "",
            fmt::format("expected an object of kernel names, got {}", shortDump(kernels)));
      return;
    }
    auto it = kernels.find(spec_.kernelName);
    if (it == kernels.end()) {
      std::vector<std::string> names;
      for (auto k = kernels.begin(); k != kernels.end() && names.size() < 10; ++k)
        names.push_back("'" + shortText(k.key()) + "'");
      if (kernels.size() > names.size())
        names.push_back(fmt::format("{} more", kernels.size() - names.size()));
      error("kernels", "",
            fmt::format("no config for kernel '{}' (the file has {})", spec_.kernelName,
                        names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
      return;
    }
    form(*it, "kernels." + spec_.kernelName);
  }

private:
  const ConfigSpec& spec_;
  const std::string& source_;
  std::vector<std::string>& errors_;

  void error(const std::string& prefix, const std::string& path, const std::string& rule) {
    errors_.push_back(configMessage(source_, prefix, path, rule));
  }

  /// Errors for keys of `j` outside `allowed`.
  void onlyKeys(const json& j, const std::string& prefix, const std::vector<std::string>& allowed) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end())
        continue;
      std::string rule = fmt::format("unknown key '{}'", shortText(it.key()));
      if (auto near = nearestName(it.key(), allowed))
        rule += fmt::format("; did you mean '{}'?", *near);
      error(prefix, "", rule);
    }
  }

  void form(const json& j, const std::string& prefix) {
    if (!j.is_object() || !j.contains("configs")) {
      if (auto c = parseConfigAt(j, spec_, source_, prefix, errors_))
        file.entries.push_back({{}, std::move(*c)});
      return;
    }
    onlyKeys(j, prefix, {"configs"});
    const json& configs = j["configs"];
    std::string at = join(prefix, "configs");
    if (!configs.is_array() || configs.empty()) {
      error(at, "", fmt::format("expected a non-empty list of {{\"shapes\", \"config\"}} "
                                "objects, got {}",
                                shortDump(configs)));
      return;
    }
    size_t matching = 0;
    for (size_t i = 0; i < configs.size(); ++i)
      matching += entry(configs[i], fmt::format("{}[{}]", at, i));
    if (matching == 0)
      error(at, "", fmt::format("no entry for kernel '{}'", spec_.kernelName));
  }

  /// One {"shapes", "config", "kernel"?} entry; false when it is for another kernel.
  bool entry(const json& e, const std::string& at) {
    if (!e.is_object()) {
      error(at, "",
            fmt::format("expected a {{\"shapes\", \"config\"}} object, got {}", shortDump(e)));
      return true;
    }
    if (auto k = e.find("kernel"); k != e.end()) {
      if (!k->is_string()) {
        error(at, "kernel", fmt::format("expected a kernel name, got {}", shortDump(*k)));
        return true;
      }
      if (k->get<std::string>() != spec_.kernelName)
        return false;
    }
    onlyKeys(e, at, {"shapes", "dtypes", "config", "choose", "kernel"});
    ShapedConfig out;
    bool ok = true;
    if (auto s = e.find("shapes"); s != e.end())
      ok = shapes(*s, join(at, "shapes"), out.shapes);
    if (auto d = e.find("dtypes"); d != e.end())
      ok = dtypes(*d, join(at, "dtypes"), out.dtypes) && ok;
    auto c = e.find("config");
    auto choose = e.find("choose");
    if (c != e.end() && choose != e.end()) {
      error(at, "", "expected either 'config' or 'choose', got both");
      return true;
    }
    if (choose != e.end())
      return chooseEntry(*choose, join(at, "choose"), ok, std::move(out));
    if (c == e.end()) {
      error(at, "", "missing key 'config' (or 'choose')");
      return true;
    }
    std::optional<Config> config = parseConfigAt(*c, spec_, source_, join(at, "config"), errors_);
    if (ok && config) {
      out.config = std::move(*config);
      file.entries.push_back(std::move(out));
    }
    return true;
  }

  /// `"choose": [config, ...]`: one entry per candidate, in order.
  bool chooseEntry(const json& list, const std::string& at, bool ok, ShapedConfig out) {
    if (!list.is_array() || list.size() < 2 || list.size() > kMaxChoiceCandidates) {
      error(at, "",
            fmt::format("expected a list of 2 to {} configs to choose from, got {}",
                        kMaxChoiceCandidates, shortDump(list)));
      return true;
    }
    std::vector<ShapedConfig> candidates;
    for (size_t i = 0; i < list.size(); ++i) {
      std::optional<Config> config =
          parseConfigAt(list[i], spec_, source_, fmt::format("{}[{}]", at, i), errors_);
      if (!config) {
        ok = false;
        continue;
      }
      ShapedConfig candidate = out;
      candidate.config = std::move(*config);
      candidate.choice = static_cast<int>(i);
      candidates.push_back(std::move(candidate));
    }
    if (ok)
      file.entries.insert(file.entries.end(), candidates.begin(), candidates.end());
    return true;
  }

  /// `{"x": "bf16", ...}`: dtype names as `--dtype` spells them.
  bool dtypes(const json& d, const std::string& at, Dtypes& out) {
    if (!d.is_object()) {
      error(at, "", fmt::format("expected an object of tensor dtypes, got {}", shortDump(d)));
      return false;
    }
    bool ok = true;
    const std::vector<std::string>& names = dtypeNames();
    for (auto it = d.begin(); it != d.end(); ++it) {
      const json& v = it.value();
      if (!v.is_string() ||
          std::find(names.begin(), names.end(), v.get<std::string>()) == names.end()) {
        error(at, shortText(it.key()),
              fmt::format("expected a dtype ({}), got {}", fmt::join(names, " "), shortDump(v)));
        ok = false;
        continue;
      }
      out[it.key()] = v.get<std::string>();
    }
    return ok;
  }

  bool shapes(const json& s, const std::string& at, Shapes& out) {
    if (!s.is_object()) {
      error(at, "", fmt::format("expected an object of tensor sizes, got {}", shortDump(s)));
      return false;
    }
    bool ok = true;
    for (auto it = s.begin(); it != s.end(); ++it) {
      std::vector<int64_t> sizes;
      const json& v = it.value();
      for (size_t d = 0; v.is_array() && d < v.size(); ++d) {
        if (!v[d].is_number_integer() || v[d].get<int64_t>() < 0) {
          error(at, fmt::format("{}[{}]", shortText(it.key()), d),
                fmt::format("expected a size (an integer >= 0), got {}", shortDump(v[d])));
          ok = false;
        } else {
          sizes.push_back(v[d].get<int64_t>());
        }
      }
      if (!v.is_array()) {
        error(at, shortText(it.key()),
              fmt::format("expected a list of sizes, got {}", shortDump(v)));
        ok = false;
      }
      out[it.key()] = std::move(sizes);
    }
    return ok;
  }
};

} // namespace

namespace {

/// Watches nlohmann's parse events for a key seen twice in one object. Frames
/// mirror the open objects and arrays: an object's current key and an array's
/// current index make up the path of whatever is being parsed.
class DuplicateKeys {
public:
  DuplicateKeys(const std::string& source, std::vector<std::string>& errors)
      : source_(source), errors_(errors) {}

  void open(bool array) { frames_.push_back({array, 0, {}, {}}); }
  void close() {
    frames_.pop_back();
    elementDone();
  }
  void key(const std::string& key) {
    Frame& f = frames_.back();
    f.key = key;
    if (!f.keys.insert(f.key).second)
      errors_.push_back(configMessage(source_, path(), "",
                                      fmt::format("duplicate key '{}'", shortText(f.key))));
  }
  void elementDone() {
    if (!frames_.empty() && frames_.back().array)
      ++frames_.back().index;
  }

private:
  struct Frame {
    bool array;
    size_t index;
    std::string key;
    std::set<std::string> keys;
  };
  const std::string& source_;
  std::vector<std::string>& errors_;
  std::vector<Frame> frames_;

  /// The path of the innermost open object: "configs[0].config", "" at the top.
  std::string path() const {
    std::string out;
    for (size_t i = 0; i + 1 < frames_.size(); ++i)
      out = frames_[i].array ? fmt::format("{}[{}]", out, frames_[i].index)
                             : join(out, shortText(frames_[i].key));
    return out;
  }
};

/// nlohmann's DOM builder with the duplicate-key watch on its events. Unlike
/// json::parse with a callback it sees the byte offset of every parse error, so
/// that a number out of range (1e400), which nlohmann reports without one,
/// becomes a located parse_error too.
class ConfigSax {
public:
  ConfigSax(json& result, DuplicateKeys& watch) : dom_(result, true), watch_(watch) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const std::string& s) {
    return value(dom_.number_float(v, s));
  }
  bool string(json::string_t& v) { return value(dom_.string(v)); }
  bool binary(json::binary_t& v) { return value(dom_.binary(v)); }
  bool start_object(std::size_t n) {
    watch_.open(false);
    return dom_.start_object(n);
  }
  bool key(json::string_t& v) {
    watch_.key(v);
    return dom_.key(v);
  }
  bool end_object() {
    watch_.close();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    watch_.open(true);
    return dom_.start_array(n);
  }
  bool end_array() {
    watch_.close();
    return dom_.end_array();
  }
  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::detail::exception& e) {
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e))
      throw *pe;
    // out_of_range 406, "number overflow": `byte` is just past the number.
    throw json::parse_error::create(
        406, byte >= token.size() ? byte - token.size() + 1 : byte,
        fmt::format("number out of range: {}", shortText(token)), nullptr);
  }

private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  DuplicateKeys& watch_;

  bool value(bool ok) {
    watch_.elementDone();
    return ok;
  }
};

/// The 1-based byte offset of the first '[' or '{' nested deeper than `limit`
/// outside strings, or 0. A flat scan, so that no recursive code (nlohmann's
/// dump(), destructors of deep values, our readers) ever sees untrusted depth.
size_t tooDeep(const std::string& text, size_t limit) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return i + 1;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

} // namespace

std::optional<json> parseJsonText(const std::string& text, const std::string& sourceName,
                                  std::vector<std::string>& errors) {
  if (size_t byte = tooDeep(text, kMaxJsonDepth))
    throw json::parse_error::create(
        407, byte, fmt::format("nested deeper than {} levels", kMaxJsonDepth), nullptr);
  const size_t before = errors.size();
  DuplicateKeys watch(sourceName, errors);
  json j;
  ConfigSax sax(j, watch);
  json::sax_parse(text, &sax);
  if (errors.size() != before)
    return std::nullopt;
  return j;
}

Parsed<ConfigFile> parseConfigFile(const json& j, const ConfigSpec& spec,
                                   const std::string& sourceName) {
  Parsed<ConfigFile> out;
  FileReader reader(spec, sourceName, out.errors);
  reader.top(j);
  if (out.errors.empty() && !reader.file.entries.empty())
    out.value = std::move(reader.file);
  return out;
}

std::optional<double> shapeDistance(const Shapes& query, const Shapes& tuned) {
  double distance = 0;
  for (const auto& [name, sizes] : tuned) {
    auto it = query.find(name);
    if (it == query.end() || it->second.size() != sizes.size())
      return std::nullopt;
    for (size_t d = 0; d < sizes.size(); ++d) {
      double q = static_cast<double>(std::max<int64_t>(1, it->second[d]));
      double t = static_cast<double>(std::max<int64_t>(1, sizes[d]));
      distance += std::abs(std::log2(q / t));
    }
  }
  return distance;
}

const std::vector<std::string>& dtypeNames() {
  // helion::DType's enumerators, whose names the generated launcher writes.
  static const std::vector<std::string> names = {"f16", "bf16", "f32", "f64", "i8", "i32",
                                                 "i64", "b8", "u8", "f8e4m3", "f8e5m2"};
  return names;
}

const ShapedConfig& selectConfig(const ConfigFile& file, const Shapes& shapes,
                                 const Dtypes& dtypes) {
  // The table the generated launcher holds, built here from the file's entries, and
  // the launcher's own pick (helion/runtime/ShapeDispatch.h): one definition.
  std::vector<std::string> names;
  std::vector<rt::ShapeKey> keys;
  std::vector<rt::DtypeKey> dtypeKeys;
  std::vector<rt::ShapeEntry> entries;
  std::vector<int64_t> sizes;
  auto tensor = [&](const std::string& name) {
    auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end())
      at = names.insert(names.end(), name);
    return static_cast<int>(at - names.begin());
  };
  const std::vector<std::string>& codes = dtypeNames();
  auto code = [&](const std::string& dtype) {
    return static_cast<int>(std::find(codes.begin(), codes.end(), dtype) - codes.begin());
  };
  for (const ShapedConfig& e : file.entries) {
    entries.push_back({static_cast<int>(keys.size()), static_cast<int>(e.shapes.size()),
                       static_cast<int>(dtypeKeys.size()), static_cast<int>(e.dtypes.size())});
    for (const auto& [name, dims] : e.shapes) {
      keys.push_back({tensor(name), static_cast<int>(dims.size()), static_cast<int>(sizes.size())});
      sizes.insert(sizes.end(), dims.begin(), dims.end());
    }
    for (const auto& [name, dtype] : e.dtypes)
      dtypeKeys.push_back({tensor(name), code(dtype)});
  }
  int picked = rt::pickShapeEntry(
      entries.data(), static_cast<int>(entries.size()), keys.data(), sizes.data(),
      dtypeKeys.data(),
      [&](int t, int rank) -> const int64_t* {
        auto it = shapes.find(names[t]);
        return it == shapes.end() || static_cast<int>(it->second.size()) != rank
                   ? nullptr
                   : it->second.data();
      },
      [&](int t) {
        auto it = dtypes.find(names[t]);
        return it == dtypes.end() ? -1 : code(it->second);
      });
  return file.entries.at(picked);
}

} // namespace helion::config
