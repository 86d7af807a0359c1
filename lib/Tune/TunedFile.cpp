//===- TunedFile.cpp - Merging results into a config file ------------------===//
#include "helion/Tune/TunedFile.h"

#include "helion/Tune/AtomicFile.h"

#include <fmt/format.h>

#include <algorithm>

namespace helion::tune {

using ojson = nlohmann::ordered_json;

namespace {

struct Entry {
  nlohmann::json shapes; ///< an object; empty = not keyed by shape
  ojson config;          ///< a config, or the list of a "choose" entry
  bool choose = false;
  nlohmann::json dtypes = nlohmann::json::object(); ///< an object; empty = any dtypes
};

struct KernelEntries {
  std::string kernel;
  std::vector<Entry> entries;
};

/// Reads the forms of configs/README.md into entries per kernel, in file order.
class Reader {
public:
  Reader(std::string source, std::string untagged, std::vector<std::string> &errors)
      : source_(std::move(source)), untagged_(std::move(untagged)), errors_(errors) {}

  std::vector<KernelEntries> kernels;

  void top(const ojson &j) {
    if (!j.is_object())
      return error("", fmt::format("expected a config object, got {}", j.dump()));
    auto named = j.find("kernels");
    if (named == j.end())
      return form(j, "", untagged_, false);
    if (j.size() != 1)
      return error("", "expected only the key 'kernels' next to 'kernels'");
    if (!named->is_object())
      return error("kernels",
                   fmt::format("expected an object of kernel names, got {}", named->dump()));
    for (auto it = named->begin(); it != named->end(); ++it)
      form(it.value(), "kernels." + it.key(), it.key(), true);
  }

private:
  std::string source_, untagged_;
  std::vector<std::string> &errors_;

  void error(const std::string &path, const std::string &rule) {
    errors_.push_back(path.empty() ? fmt::format("{}: {}", source_, rule)
                                   : fmt::format("{}: {}: {}", source_, path, rule));
  }

  std::vector<Entry> &of(const std::string &kernel) {
    auto it = std::find_if(kernels.begin(), kernels.end(),
                           [&](const KernelEntries &k) { return k.kernel == kernel; });
    if (it != kernels.end())
      return it->entries;
    return kernels.emplace_back(KernelEntries{kernel, {}}).entries;
  }

  /// A config object, or {"configs": [...]}, for `kernel`. Under `kernels.<name>`
  /// (`strict`) an entry tagged with another kernel is dead (the parser skips it); at
  /// the top level the tag says whose it is.
  void form(const ojson &j, const std::string &at, const std::string &kernel, bool strict) {
    if (!j.is_object())
      return error(at, fmt::format("expected a config object, got {}", j.dump()));
    auto configs = j.find("configs");
    if (configs == j.end()) {
      of(kernel).push_back({nlohmann::json::object(), j});
      return;
    }
    std::string list = at.empty() ? "configs" : at + ".configs";
    if (j.size() != 1)
      return error(at, "expected only the key 'configs' next to 'configs'");
    if (!configs->is_array() || configs->empty())
      return error(list, "expected a non-empty list of {\"shapes\", \"config\"} objects");
    for (size_t i = 0; i < configs->size(); ++i)
      entry((*configs)[i], fmt::format("{}[{}]", list, i), kernel, strict);
  }

  void entry(const ojson &e, const std::string &at, const std::string &kernel, bool strict) {
    if (!e.is_object())
      return error(at,
                   fmt::format("expected a {{\"shapes\", \"config\"}} object, got {}", e.dump()));
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != "shapes" && it.key() != "dtypes" && it.key() != "config" &&
          it.key() != "choose" && it.key() != "kernel")
        return error(at, fmt::format("unknown key '{}'", it.key()));
    std::string owner = kernel;
    if (auto tag = e.find("kernel"); tag != e.end()) {
      if (!tag->is_string())
        return error(at + ".kernel", fmt::format("expected a kernel name, got {}", tag->dump()));
      if (strict && tag->get<std::string>() != kernel)
        return; // never read for `kernel`: dropped
      owner = tag->get<std::string>();
    }
    auto config = e.find("config"), choose = e.find("choose");
    if (config != e.end() && choose != e.end())
      return error(at, "expected either 'config' or 'choose', got both");
    if (choose != e.end() && !choose->is_array())
      return error(at + ".choose", fmt::format("expected a list of configs, got {}", choose->dump()));
    if (config == e.end() && choose == e.end())
      return error(at, "missing key 'config' (or 'choose')");
    Entry out{nlohmann::json::object(), config != e.end() ? *config : *choose, choose != e.end()};
    if (auto shapes = e.find("shapes"); shapes != e.end()) {
      if (!shapes->is_object())
        return error(at + ".shapes",
                     fmt::format("expected an object of tensor sizes, got {}", shapes->dump()));
      out.shapes = nlohmann::json::parse(shapes->dump());
    }
    if (auto dtypes = e.find("dtypes"); dtypes != e.end()) {
      if (!dtypes->is_object())
        return error(at + ".dtypes",
                     fmt::format("expected an object of tensor dtypes, got {}", dtypes->dump()));
      out.dtypes = nlohmann::json::parse(dtypes->dump());
    }
    of(owner).push_back(std::move(out));
  }
};

ojson entryJson(const Entry &e, const std::string *kernel) {
  ojson j = ojson::object();
  if (kernel)
    j["kernel"] = *kernel;
  if (!e.shapes.empty())
    j["shapes"] = ojson::parse(e.shapes.dump());
  if (!e.dtypes.empty())
    j["dtypes"] = ojson::parse(e.dtypes.dump());
  j[e.choose ? "choose" : "config"] = e.config;
  return j;
}

} // namespace

config::Parsed<ojson> mergeTunedFile(const std::optional<ojson> &existing,
                                     const std::vector<TunedEntry> &results,
                                     const std::string &untaggedKernel,
                                     const std::string &sourceName) {
  config::Parsed<ojson> out;
  Reader reader(sourceName, untaggedKernel, out.errors);
  if (existing)
    reader.top(*existing);
  if (!out.errors.empty())
    return out;
  std::vector<KernelEntries> &kernels = reader.kernels;
  for (const TunedEntry &r : results) {
    auto k = std::find_if(kernels.begin(), kernels.end(),
                          [&](const KernelEntries &e) { return e.kernel == r.kernel; });
    if (k == kernels.end())
      k = kernels.insert(kernels.end(), KernelEntries{r.kernel, {}});
    Entry fresh{r.shapes.is_object() ? r.shapes : nlohmann::json::object(), r.config, r.choose,
                r.dtypes.is_object() ? r.dtypes : nlohmann::json::object()};
    // nlohmann::json objects compare by content, whatever the key order.
    auto same = std::find_if(k->entries.begin(), k->entries.end(), [&](const Entry &e) {
      return e.shapes == fresh.shapes && e.dtypes == fresh.dtypes;
    });
    if (same != k->entries.end())
      *same = std::move(fresh);
    else
      k->entries.push_back(std::move(fresh));
  }
  std::erase_if(kernels, [](const KernelEntries &k) { return k.entries.empty(); });
  if (kernels.empty()) {
    out.errors.push_back(
        fmt::format("{}: nothing to write: no results and no entries", sourceName));
    return out;
  }
  ojson file = ojson::object();
  if (kernels.size() == 1) {
    ojson list = ojson::array();
    for (const Entry &e : kernels[0].entries)
      list.push_back(entryJson(e, &kernels[0].kernel));
    file["configs"] = std::move(list);
  } else {
    ojson byName = ojson::object();
    for (const KernelEntries &k : kernels) {
      ojson list = ojson::array();
      for (const Entry &e : k.entries)
        list.push_back(entryJson(e, nullptr));
      byName[k.kernel]["configs"] = std::move(list);
    }
    file["kernels"] = std::move(byName);
  }
  out.value = std::move(file);
  return out;
}

std::vector<std::string> updateTunedFile(const std::filesystem::path &path,
                                         const std::vector<TunedEntry> &results,
                                         const std::string &untaggedKernel) {
  const std::string source = path.string();
  std::optional<ojson> existing;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    std::optional<std::string> text = readFile(path);
    if (!text)
      return {fmt::format("{}: cannot read the existing file", source)};
    std::vector<std::string> errors;
    try {
      // parseJsonText reports keys repeated in an object (nlohmann would keep the last).
      if (!config::parseJsonText(*text, source, errors))
        return errors;
      existing = ojson::parse(*text);
    } catch (const nlohmann::json::parse_error &e) {
      return {fmt::format("{}: invalid JSON at byte {}; not overwritten", source, e.byte)};
    }
  }
  config::Parsed<ojson> merged = mergeTunedFile(existing, results, untaggedKernel, source);
  if (!merged.ok())
    return merged.errors;
  if (auto failure = writeFileAtomically(path, merged.value->dump(2) + "\n"))
    return {*failure};
  return {};
}

} // namespace helion::tune
