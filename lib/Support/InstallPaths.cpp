//===- InstallPaths.cpp - Where helionc's own files are --------------------===//
#include "helion/Support/InstallPaths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

// Set by lib/Support/CMakeLists.txt: this build's bin/, and what a helionc run from
// there uses. Empty (never matched) when compiled without them.
#ifndef HELIONC_BUILD_BIN_DIR
#define HELIONC_BUILD_BIN_DIR ""
#endif
#ifndef HELIONC_SOURCE_INCLUDE_DIR
#define HELIONC_SOURCE_INCLUDE_DIR ""
#endif
#ifndef HELIONC_BUILD_RUNTIME_LIB
#define HELIONC_BUILD_RUNTIME_LIB ""
#endif

namespace helion {
namespace {

namespace fs = std::filesystem;

std::string fromEnvironment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

/// Whether the running executable is in this build's bin/ (compared by inode, so
/// symlinks in either path do not matter).
bool runningFromBuildTree() {
  std::string exeDir = executableDir();
  std::error_code ec;
  return !exeDir.empty() && *HELIONC_BUILD_BIN_DIR &&
         fs::equivalent(exeDir, HELIONC_BUILD_BIN_DIR, ec);
}

} // namespace

std::string executableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

std::string findBesideExecutable(std::string_view relDir, std::string_view probe) {
  std::string exeDir = executableDir();
  if (exeDir.empty())
    return {};
  fs::path dir = (fs::path(exeDir).parent_path() / relDir).lexically_normal();
  std::error_code ec;
  if (!fs::exists(dir / probe, ec))
    return {};
  return dir.string();
}

std::string helionIncludeDir() {
  if (std::string dir = fromEnvironment("HELIONC_HL_INCLUDE"); !dir.empty())
    return dir;
  if (std::string dir = findBesideExecutable("include", "helion/hl.h"); !dir.empty())
    return dir;
  return runningFromBuildTree() ? HELIONC_SOURCE_INCLUDE_DIR : "";
}

std::string helionRuntimeLibrary() {
  if (std::string lib = fromEnvironment("HELIONC_RUNTIME_LIB"); !lib.empty())
    return lib;
  if (std::string dir = findBesideExecutable("lib", "libhelion_runtime.a"); !dir.empty())
    return (fs::path(dir) / "libhelion_runtime.a").string();
  return runningFromBuildTree() ? HELIONC_BUILD_RUNTIME_LIB : "";
}

} // namespace helion
