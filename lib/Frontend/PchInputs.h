//===- PchInputs.h - What a PCH build looked at, and whether it changed -*- C++ -*-===//
//
// Private to lib/Frontend (PrecompiledHeader.cpp). A header search probes many paths
// that do not exist (<vector> is looked for in each -I directory before the system
// ones); a file created at one of them later changes what the same #include finds. So
// the build runs on a file system that records every path Clang probed and what it
// found, with the size and content hash of every file it read, and a PCH is current
// when probing the same paths now finds the same things.
//===----------------------------------------------------------------------===//
#pragma once

#include <llvm/Support/VirtualFileSystem.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace helion::frontend {

/// One probed path: what was there.
struct Probe {
  enum class Kind { Missing, File, Directory, Other } kind = Kind::Missing;
  uint64_t size = 0;       ///< File: its size
  std::string contentHash; ///< File that was read: xxh3-128 of its bytes (32 hex digits)
};

/// Every path a build probed, as Clang spelled it.
struct PchInputs {
  std::map<std::string, Probe> probes;
  bool listedDirectory = false; ///< Clang read a directory's entries (not recorded)
};

/// `base` seen through a recorder that fills `inputs` (which must outlive it).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
recordingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> base, PchInputs& inputs);

/// The first probed path that is no longer what the build found, or nullopt when
/// every one is (files that were read: same size and bytes).
std::optional<std::string> firstChangedInput(const PchInputs& inputs);

/// xxh3-128 of `bytes` as 32 hex digits.
std::string contentHash(llvm::StringRef bytes);

/// One line per probe (`kind size hash path`), the format of a manifest's body.
std::string serializeInputs(const PchInputs& inputs);
/// nullopt when `text` is not what serializeInputs writes.
std::optional<PchInputs> parseInputs(llvm::StringRef text);

} // namespace helion::frontend
