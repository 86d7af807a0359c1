//===- CompileCache.cpp - on-disk cubin cache -----------------------------===//

#include "CompileCache.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace helion::rt {

namespace fs = std::filesystem;

bool cacheEnabled() {
  const char *off = std::getenv("HELIONC_NO_CACHE");
  return !off || !*off || std::string_view(off) == "0";
}

fs::path cacheDirectory() {
  if (const char *dir = std::getenv("HELIONC_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "helionc";
  if (const char *home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "helionc";
  return fs::temp_directory_path() / "helionc-cache";
}

namespace detail {
namespace {

constexpr char kMagic[8] = {'H', 'L', 'N', 'C', 'A', 'C', 'H', 'E'};
constexpr std::uint32_t kFormat = 2; // 2: the key inside the payload
constexpr std::size_t kHeaderBytes = 8 + 4 + 8 + 8;

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T> void put(std::string &out, T value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof(T));
}

void putBytes(std::string &out, std::string_view bytes) {
  put<std::uint32_t>(out, static_cast<std::uint32_t>(bytes.size()));
  out.append(bytes);
}

/// Reads from a byte span, failing (ok = false) instead of overrunning.
struct Reader {
  std::string_view in;
  bool ok = true;
  template <class T> T get() {
    T value{};
    if (in.size() < sizeof(T)) {
      ok = false;
      return value;
    }
    std::memcpy(&value, in.data(), sizeof(T));
    in.remove_prefix(sizeof(T));
    return value;
  }
  std::string bytes(std::uint64_t n) {
    if (!ok || in.size() < n) {
      ok = false;
      return {};
    }
    std::string out(in.substr(0, n));
    in.remove_prefix(n);
    return out;
  }
};

} // namespace

KeyHasher &KeyHasher::add(std::string_view field) {
  std::uint64_t size = field.size();
  mix(&size, sizeof(size));
  mix(field.data(), field.size());
  return *this;
}

void KeyHasher::mix(const void *data, std::size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (std::size_t i = 0; i < size; ++i) {
    a_ = (a_ ^ p[i]) * 0x100000001b3ull;                       // FNV-1a
    b_ = (b_ + p[i] + 1) * 0xff51afd7ed558ccdull ^ (b_ >> 29); // a different multiplicative lane
  }
}

std::string KeyHasher::hex() const {
  char out[33];
  std::snprintf(out, sizeof(out), "%016llx%016llx", static_cast<unsigned long long>(splitmix(a_)),
                static_cast<unsigned long long>(splitmix(b_ ^ a_)));
  return out;
}

std::uint64_t checksum(std::string_view data) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data)
    h = (h ^ c) * 0x100000001b3ull;
  return splitmix(h);
}

std::string serializeEntry(const std::string &key, const CompiledProgram &program) {
  std::string payload;
  putBytes(payload, key);
  put<std::uint32_t>(payload, static_cast<std::uint32_t>(program.loweredNames.size()));
  for (const auto &[expression, lowered] : program.loweredNames) {
    putBytes(payload, expression);
    putBytes(payload, lowered);
  }
  put<std::uint64_t>(payload, program.cubin.size());
  payload += program.cubin;

  std::string out(kMagic, sizeof(kMagic));
  put<std::uint32_t>(out, kFormat);
  put<std::uint64_t>(out, payload.size());
  put<std::uint64_t>(out, checksum(payload));
  return out + payload;
}

std::optional<CompiledProgram> parseEntry(std::string_view bytes, const std::string &key) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return std::nullopt;
  Reader header{bytes.substr(sizeof(kMagic), kHeaderBytes - sizeof(kMagic))};
  auto format = header.get<std::uint32_t>();
  auto size = header.get<std::uint64_t>();
  auto sum = header.get<std::uint64_t>();
  std::string_view payload = bytes.substr(kHeaderBytes);
  if (format != kFormat || size != payload.size() || sum != checksum(payload))
    return std::nullopt;

  Reader in{payload};
  // Another key's whole, intact entry under this key's name (copied, or a stale
  // rename) is a miss, not that kernel's cubin.
  if (in.bytes(in.get<std::uint32_t>()) != key || !in.ok)
    return std::nullopt;
  CompiledProgram program;
  auto count = in.get<std::uint32_t>();
  for (std::uint32_t i = 0; in.ok && i < count; ++i) {
    std::string expression = in.bytes(in.get<std::uint32_t>());
    std::string lowered = in.bytes(in.get<std::uint32_t>());
    program.loweredNames[expression] = lowered;
  }
  program.cubin = in.bytes(in.get<std::uint64_t>());
  if (!in.ok || !in.in.empty() || program.cubin.empty())
    return std::nullopt;
  program.cacheHit = true;
  return program;
}

fs::path cacheEntryPath(const std::string &key) { return cacheDirectory() / (key + ".cubin"); }

std::optional<CompiledProgram> readCacheEntry(const std::string &key) {
  std::ifstream file(cacheEntryPath(key), std::ios::binary);
  if (!file)
    return std::nullopt;
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return parseEntry(bytes.str(), key);
}

void writeCacheEntry(const std::string &key, const CompiledProgram &program) {
  std::error_code ec;
  fs::path dir = cacheDirectory();
  fs::create_directories(dir, ec);
  if (ec)
    return;
  // A unique temporary name per process and call, then rename: readers see
  // either no entry or a whole one, and concurrent writers of the same key
  // each rename an identical file into place.
  static std::atomic<unsigned> counter{0};
  fs::path tmp = dir / (key + ".tmp." + std::to_string(::getpid()) + "." +
                        std::to_string(counter.fetch_add(1)));
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    std::string bytes = serializeEntry(key, program);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file.flush()) {
      file.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, cacheEntryPath(key), ec);
  if (ec)
    fs::remove(tmp, ec);
}

} // namespace detail
} // namespace helion::rt
