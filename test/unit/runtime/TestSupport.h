// Shared helpers of the runtime tests: a private cache directory per test.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

namespace helion::rt::test {

/// Points HELIONC_CACHE_DIR at a fresh directory for the scope's lifetime and
/// enables the cache; removes the directory afterwards.
class ScopedCacheDir {
public:
  ScopedCacheDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("helionc-rt-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
    setenv("HELIONC_CACHE_DIR", path_.c_str(), 1);
    unsetenv("HELIONC_NO_CACHE");
  }
  ~ScopedCacheDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    unsetenv("HELIONC_CACHE_DIR");
  }
  const std::filesystem::path &path() const { return path_; }

  /// The entries (*.cubin) currently in the directory.
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    for (const auto &e : std::filesystem::directory_iterator(path_))
      if (e.path().extension() == ".cubin")
        out.push_back(e.path());
    return out;
  }

private:
  std::filesystem::path path_;
};

} // namespace helion::rt::test
