//===- PrecompiledHeader.h - <helion/hl.h> parsed once, kept on disk -*- C++ -*-===//
//
// Private to lib/Frontend. Parsing hl.h and the standard headers it includes is
// nearly all of a compile's time (about 1.4 s of CPU), the kernel itself a few
// milliseconds. So hl.h is compiled once into a Clang PCH, kept in
//   <dir>/<key>.pch       the AST (templates instantiated in it: -fpch-instantiate-templates)
//   <dir>/<key>.manifest  what it was built from: every path the build looked at
//                         (found or not), the size and xxh3-128 of every file it read,
//                         and the PCH's own size and hash
// where <key> hashes what decides its contents besides the files: the cc1 options
// Clang derived for the kernel file (language, target, macros, search paths, warnings;
// CPATH and the like included), the path of hl.h, Clang's and helionc's versions.
//
// A PCH is used only when it is current: each path the build probed is probed again
// (a header now found earlier in the search path, or an edited one, makes it stale)
// and the PCH's bytes are hashed, then handed to Clang from memory (PchUse::bytes), so
// Clang reads exactly the bytes checked. Stale, missing or damaged: rebuilt under a
// lock file (one builder; others wait for it), written to temporary names and renamed.
// A build that drew any diagnostic from the headers is recorded as unusable (not
// retried until an input changes): the kernel file is then parsed from source, and the
// user sees those diagnostics as without a PCH. One that failed otherwise (a full
// disk, say) records nothing; a cache directory where no lock file can be made is not
// built in at all (it would double the cost of every compile).
//
// Same meaning as parsing from source: the kernel file's first line of code includes
// hl.h (Frontend.cpp checks), so the PCH stands for exactly that prefix, built with the
// file's own options. One difference is allowed by C++ and not observable in a valid
// program: templates that the headers themselves use are instantiated at the end of
// hl.h instead of the end of the kernel file (both are points of instantiation; a file
// whose later declarations would change those instantiations is ill-formed, no
// diagnostic required, [temp.point]/7). Templates the kernel file uses are instantiated
// at its end, as before.
//===----------------------------------------------------------------------===//
#pragma once

#include <clang/Frontend/CompilerInvocation.h>
#include <llvm/Support/MemoryBuffer.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace helion::frontend {

/// A verified PCH: Clang is to read `bytes` under `path`.
struct PchUse {
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> bytes;
};

/// Where PCHs are kept and how to report what happens to them.
struct PchCache {
  std::string dir;                      ///< the directory of .pch and .manifest files
  std::function<void(std::string)> log; ///< one line per decision, or empty
};

/// The PCH of `hlPath` for a parse with `invocation` (the kernel file's), reused from
/// `cache` when current, else built first. nullopt when none can be used (the build
/// failed or emitted a diagnostic, a search path is relative, the directory is not
/// writable, ...): parse without one.
std::optional<PchUse> precompiledHl(const clang::CompilerInvocation& invocation,
                                    const std::string& hlPath, const PchCache& cache);

/// Makes the PCH at `path` stale, so that the next use rebuilds it (Clang refused it).
void discardPch(const std::string& path);

} // namespace helion::frontend
