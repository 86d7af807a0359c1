//===- Aot.cpp - kernel images embedded ahead of time ---------------------===//

#include "helion/runtime/Aot.h"

#include <cstdlib>
#include <mutex>

namespace helion::rt {
namespace {

struct ParsedArch {
  int major = -1, minor = -1;
  char suffix = 0; ///< 'a' (arch-specific), 'f' (family), or 0
};

/// "sm_90a" -> {9, 0, 'a'}; "sm_120" -> {12, 0}; "sm_86" -> {8, 6}; else major -1.
ParsedArch parseArch(std::string_view arch) {
  ParsedArch out;
  if (arch.substr(0, 3) != "sm_")
    return out;
  arch.remove_prefix(3);
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) {
    out.suffix = arch.back();
    arch.remove_suffix(1);
  }
  if (arch.size() < 2 || arch.size() > 3)
    return out;
  int value = 0;
  for (char c : arch) {
    if (c < '0' || c > '9')
      return out;
    value = value * 10 + (c - '0');
  }
  out.major = value / 10;
  out.minor = value % 10;
  return out;
}

struct Registry {
  std::mutex mutex;
  std::vector<const AotTable *> tables;
};

Registry &registry() {
  static Registry *r = new Registry; // leaked: registrations run during static init
  return *r;
}

} // namespace

bool aotArchRuns(std::string_view arch, int major, int minor) {
  ParsedArch a = parseArch(arch);
  if (a.major < 0 || a.major != major)
    return false;
  return a.suffix == 'a' ? a.minor == minor : a.minor <= minor;
}

const AotImage *findAotImage(const AotTable &table, std::string_view name,
                             std::string_view exactArch, int major, int minor) {
  const AotImage *best = nullptr;
  int bestMinor = -1;
  for (std::size_t i = 0; i < table.count; ++i) {
    const AotImage &image = table.images[i];
    if (name != image.name)
      continue;
    if (exactArch == image.arch)
      return &image;
    if (!aotArchRuns(image.arch, major, minor))
      continue;
    if (int m = parseArch(image.arch).minor; m > bestMinor) {
      best = &image;
      bestMinor = m;
    }
  }
  return best;
}

bool aotRequired() {
  const char *v = std::getenv("HELIONC_REQUIRE_AOT");
  return v && *v && std::string_view(v) != "0";
}

AotRegistration::AotRegistration(const AotTable &table) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.tables.push_back(&table);
}

std::vector<const AotTable *> aotTables() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.tables;
}

std::string aotListing() {
  std::string out;
  for (const AotTable *table : aotTables())
    for (std::size_t i = 0; i < table->count; ++i) {
      const AotImage &image = table->images[i];
      out += std::string(table->program) + " " + image.arch + " " + std::to_string(image.size) +
             " " + image.name + "\n";
    }
  return out;
}

} // namespace helion::rt
