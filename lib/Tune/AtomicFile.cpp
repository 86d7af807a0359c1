//===- AtomicFile.cpp - Whole-or-nothing file writes -----------------------===//
#include "helion/Tune/AtomicFile.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace helion::tune {

namespace fs = std::filesystem;

namespace {

/// Writes all of `data` to `fd`, retrying short writes and EINTR.
bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

/// Best effort: makes a finished rename durable. Some file systems refuse to fsync a
/// directory; the file itself is already whole, so that is not an error.
void syncDirectory(const fs::path &dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  ::fsync(fd);
  ::close(fd);
}

} // namespace

std::optional<std::string> writeFileAtomically(const fs::path &path, std::string_view contents) {
  auto failure = [&](const std::string &what) {
    return fmt::format("cannot write '{}': {}", path.string(), what);
  };
  fs::path dir = path.parent_path();
  std::error_code ec;
  if (!dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec)
      return failure(ec.message());
  }
  // Unique per process and call: two threads or processes never share a temporary.
  static std::atomic<unsigned> counter{0};
  fs::path tmp = dir / fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(),
                                   counter.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return failure(std::strerror(errno));
  bool ok = writeAll(fd, contents) && ::fsync(fd) == 0;
  std::string reason = ok ? "" : std::strerror(errno);
  ok = ::close(fd) == 0 && ok;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    reason = std::strerror(errno);
  }
  if (!ok) {
    fs::remove(tmp, ec);
    return failure(reason.empty() ? "close failed" : reason);
  }
  syncDirectory(dir);
  return std::nullopt;
}

std::optional<std::string> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return bytes.str();
}

} // namespace helion::tune
