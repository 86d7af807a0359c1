//===- TuneCache.cpp - Tuning results kept across runs ---------------------===//
#include "helion/Tune/TuneCache.h"

#include "helion/Tune/AtomicFile.h"
#include "helion/Tune/Hash.h"

#include <fmt/format.h>

#include <cstdlib>

namespace helion::tune {

namespace fs = std::filesystem;

namespace {

constexpr int kFormat = 1;

/// Field name and member, in key order. The order is part of the digest: reorder
/// only together with kFormat.
const std::pair<const char *, std::string TuneKey::*> kFields[] = {
    {"source_hash", &TuneKey::sourceHash},
    {"kernel", &TuneKey::kernel},
    {"args", &TuneKey::args},
    {"gpu", &TuneKey::gpu},
    {"compute_capability", &TuneKey::computeCapability},
    {"driver", &TuneKey::driver},
    {"nvrtc", &TuneKey::nvrtc},
    {"helionc", &TuneKey::helionc},
};

/// Short names for the log line.
const char *kTextNames[] = {"source", "kernel", "args", "gpu", "sm", "driver", "nvrtc", "helionc"};

/// True when `stored` has exactly the fields of `key`, with the same values.
bool sameKey(const nlohmann::json &stored, const TuneKey &key) {
  if (!stored.is_object() || stored.size() != std::size(kFields))
    return false;
  for (const auto &[name, member] : kFields) {
    auto it = stored.find(name);
    if (it == stored.end() || !it->is_string() || it->get<std::string>() != key.*member)
      return false;
  }
  return true;
}

} // namespace

nlohmann::ordered_json TuneKey::toJson() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto &[name, member] : kFields)
    j[name] = this->*member;
  return j;
}

std::string TuneKey::text() const {
  std::string s;
  size_t i = 0;
  for (const auto &field : kFields) {
    std::string value = this->*field.second;
    if (value.find(' ') != std::string::npos) // args and GPU names have spaces
      value = "'" + value + "'";
    s += fmt::format("{}{}={}", i ? " " : "", kTextNames[i], value);
    ++i;
  }
  return s;
}

std::string TuneKey::digest() const {
  Hasher h;
  h.add(fmt::format("helionc-tune-cache/{}", kFormat));
  for (const auto &field : kFields)
    h.add(this->*field.second);
  return h.digest().hex();
}

std::string sourceHash(std::string_view bytes) { return hashText(bytes).hex(); }

const char *helioncVersion() { return HELIONC_VERSION; }

fs::path TuneCache::defaultDirectory() {
  fs::path root;
  if (const char *dir = std::getenv("HELIONC_CACHE_DIR"); dir && *dir)
    root = dir;
  else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    root = fs::path(xdg) / "helionc";
  else if (const char *home = std::getenv("HOME"); home && *home)
    root = fs::path(home) / ".cache" / "helionc";
  else
    root = fs::temp_directory_path() / "helionc-cache";
  return root / "tune";
}

bool TuneCache::enabled() {
  const char *off = std::getenv("HELIONC_NO_CACHE");
  return !off || !*off || std::string_view(off) == "0";
}

fs::path TuneCache::entryPath(const TuneKey &key) const { return dir_ / (key.digest() + ".json"); }

std::optional<nlohmann::json> TuneCache::lookup(const TuneKey &key) const {
  std::optional<std::string> text = readFile(entryPath(key));
  if (!text)
    return std::nullopt;
  nlohmann::json entry = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!entry.is_object())
    return std::nullopt;
  auto format = entry.find("format");
  auto stored = entry.find("key");
  auto result = entry.find("result");
  if (format == entry.end() || *format != kFormat || stored == entry.end() ||
      !sameKey(*stored, key) || result == entry.end() || !result->is_object())
    return std::nullopt;
  return *result;
}

std::optional<std::string> TuneCache::store(const TuneKey &key,
                                            const nlohmann::json &result) const {
  if (!result.is_object())
    return fmt::format("a tuning result must be a JSON object, got {}", result.dump());
  nlohmann::ordered_json entry;
  entry["format"] = kFormat;
  entry["key"] = key.toJson();
  entry["key_text"] = key.text();
  entry["result"] = result;
  return writeFileAtomically(entryPath(key), entry.dump(2) + "\n");
}

} // namespace helion::tune
