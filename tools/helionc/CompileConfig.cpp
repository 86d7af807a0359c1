//===- CompileConfig.cpp - The config file of helionc compile ---------------===//
//
// Reading a kernel's config file (errors located in the JSON, at most 20 shown), the
// checks of its entries against the kernel (shape and dtype keys name its tensor
// parameters; a "choose" entry's candidates agree on hl::register_block_size), and
// which entry `--emit cubin|ptx` compiles for a dtype signature.
//===----------------------------------------------------------------------===//
#include "CompileConfig.h"

#include "helion/Config/DefaultEntries.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace helion::tool {
namespace {

/// The file and line:column of byte `byte` (1-based, as nlohmann counts it) of `text`.
ir::SourceLoc jsonErrorLoc(const std::string& file, const std::string& text, size_t byte) {
  ir::SourceLoc loc{file, 1, 1};
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
/// prefix (the location is reported Clang-style instead).
/// Long enough for any of nlohmann's own messages; what is cut is the echo of the
/// input ("last read: '<a megabyte of string>'").
std::string jsonErrorText(const nlohmann::json::parse_error& e) {
  constexpr size_t kMax = 160;
  std::string what = e.what();
  size_t colon = what.find(": ");
  std::string text = colon == std::string::npos ? what : what.substr(colon + 2);
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

/// The first kMaxConfigErrors of `errors`, then a note of how many more there are.
void reportConfigErrors(const std::vector<std::string>& errors, DiagnosticEngine& diags) {
  constexpr size_t kMaxConfigErrors = 20;
  for (size_t i = 0; i < errors.size() && i < kMaxConfigErrors; ++i)
    diags.error(errors[i]);
  if (errors.size() > kMaxConfigErrors)
    diags.report(Severity::Note, {},
                 std::to_string(errors.size() - kMaxConfigErrors) + " more errors not shown");
}

} // namespace

/// The config file at `path` for kernel `k` (empty: its default entries at several row
/// lengths), errors reported; nullopt on any.
std::optional<config::ConfigFile> loadConfig(const std::string& path, const AnalyzedKernel& k,
                                             DiagnosticEngine& diags) {
  const config::ConfigSpec& spec = k.spec;
  if (path.empty()) // the default at several row lengths, picked by shape at run time
    return config::ConfigFile{config::defaultEntries(k.typed)};
  std::string why;
  std::optional<std::string> text = readFile(path, &why);
  if (!text) {
    diags.error(why);
    return std::nullopt;
  }
  std::optional<nlohmann::json> j;
  std::vector<std::string> errors;
  try {
    j = config::parseJsonText(*text, path, errors);
  } catch (const nlohmann::json::parse_error& e) {
    diags.error(jsonErrorLoc(path, *text, e.byte), "invalid JSON: " + jsonErrorText(e));
    return std::nullopt;
  }
  reportConfigErrors(errors, diags); // duplicate keys
  if (!j)
    return std::nullopt;
  auto file = config::parseConfigFile(*j, spec, path);
  reportConfigErrors(file.errors, diags);
  if (!file.ok())
    return std::nullopt;
  return *file.value;
}

/// The candidates of a "choose" entry must agree on the values the host code reads
/// (hl::register_block_size): the host code runs before the launcher chooses.
bool checkChoices(const std::vector<codegen::HostKernel>& hosts, const AnalyzedKernel& k,
                  const std::string& path, DiagnosticEngine& diags) {
  std::vector<std::string> errors;
  size_t head = 0;
  for (size_t e = 0; e < hosts.size(); ++e) {
    if (hosts[e].kernel != &k.typed || hosts[e].choice < 0)
      continue;
    if (hosts[e].choice == 0)
      head = e;
    for (const auto& call : k.parsed.host.registerBlockSizeCalls) {
      size_t b = static_cast<size_t>(call.blockSize);
      if (b >= hosts[e].registerBlockSizes.size() ||
          hosts[e].registerBlockSizes[b] == hosts[head].registerBlockSizes[b])
        continue;
      errors.push_back(fmt::format(
          "{}: kernel '{}': choose[{}] gives hl::register_block_size '{}' the value {}, "
          "choose[0] {}: the candidates of a \"choose\" entry must agree on it (the host "
          "code reads it before the launcher chooses)",
          path, k.typed.name, hosts[e].choice, k.typed.blockSizes.at(b).name,
          hosts[e].registerBlockSizes[b], hosts[head].registerBlockSizes[b]));
      break;
    }
  }
  reportConfigErrors(errors, diags);
  return errors.empty();
}

/// Shape and dtype keys may name the kernel's own tensor parameters only: the launcher
/// picks an entry from them before the host code has made anything else.
bool checkShapeKeys(const config::ConfigFile& file, const ir::Kernel& k, const std::string& path,
                    DiagnosticEngine& diags) {
  std::string allowed;
  for (const ir::Param& p : k.params)
    if (p.kind == ir::Param::Kind::Tensor && !p.captured)
      allowed += (allowed.empty() ? "" : ", ") + p.name;
  std::vector<std::string> errors;
  // The tensor parameter `name` of entry e's `key` (shapes or dtypes), or null (reported).
  auto keyTensor = [&](size_t e, const char* key, const std::string& name) -> const ir::Param* {
    auto p = std::find_if(k.params.begin(), k.params.end(),
                          [&](const ir::Param& q) { return q.name == name; });
    if (p != k.params.end() && p->kind == ir::Param::Kind::Tensor && !p->captured)
      return &*p;
    errors.push_back(path + ": kernel '" + k.name + "', entry " + std::to_string(e) + ": " + key +
                     " names '" + name.substr(0, 64) +
                     "', which is not a tensor parameter of the kernel (" +
                     (allowed.empty() ? "it has none" : allowed) + ")");
    return nullptr;
  };
  for (size_t e = 0; e < file.entries.size(); ++e) {
    for (const auto& [name, sizes] : file.entries[e].shapes)
      if (const ir::Param* p = keyTensor(e, "shapes", name);
          p && p->rank >= 0 && static_cast<int>(sizes.size()) != p->rank)
        errors.push_back(path + ": kernel '" + k.name + "', entry " + std::to_string(e) +
                         ": shapes gives '" + name + "' " + std::to_string(sizes.size()) +
                         " sizes, but it has rank " + std::to_string(p->rank));
    for (const auto& entry : file.entries[e].dtypes)
      keyTensor(e, "dtypes", entry.first);
  }
  reportConfigErrors(errors, diags);
  return errors.empty();
}

/// The entry of a config file whose program `--emit cubin|ptx` compiles for a dtype
/// signature: the first whose `dtypes` are the signature's tensors' dtypes, else entry 0
/// (no sizes are known here, so shapes do not choose).
size_t entryForSignature(const config::ConfigFile& file, const ir::Kernel& k,
                         const std::vector<ir::ScalarType>& signature) {
  for (size_t e = 0; e < file.entries.size(); ++e) {
    const config::Dtypes& dtypes = file.entries[e].dtypes;
    if (dtypes.empty())
      continue;
    bool match = true;
    for (const auto& [name, dtype] : dtypes)
      for (size_t p = 0; p < k.params.size(); ++p)
        if (k.params[p].name == name && ir::scalarTypeName(signature.at(p)) != dtype)
          match = false;
    if (match)
      return e;
  }
  return 0;
}


std::string entryBanner(const AnalyzedKernel& k, const config::ConfigFile& file, size_t e,
                        const std::string& path) {
  const config::ShapedConfig& entry = file.entries[e];
  std::vector<std::string> keys;
  for (const auto& [name, sizes] : entry.shapes)
    keys.push_back(fmt::format("{}={}", name, fmt::join(sizes, "x")));
  for (const auto& [name, dtype] : entry.dtypes)
    keys.push_back(fmt::format("{}:{}", name, dtype));
  return fmt::format("// helionc: kernel '{}', entry {} of {} of {}{}: {}\n", k.typed.name, e,
                     file.entries.size(), path.empty() ? "the default entries" : "'" + path + "'",
                     keys.empty() ? "" : fmt::format(" ({})", fmt::join(keys, ", ")),
                     config::formatConfig(entry.config, k.spec));
}

} // namespace helion::tool
