//===- helion/Tune/AtomicFile.h - Whole-or-nothing file writes --*- C++ -*-===//
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace helion::tune {

/// Replaces `path` with `contents` so that a reader (or a crash) sees the old file or
/// the new one, never a mix: the bytes go to a temporary file in the same directory
/// (`.<name>.tmp.<pid>.<n>`), are fsync'ed, and the temporary is renamed over `path`
/// (then the directory is fsync'ed, so the rename survives a crash). Concurrent writers
/// each rename a whole file; the last rename wins. Creates missing parent directories.
/// Returns nullopt on success, else the reason (`cannot write 'best.json': ...`); the
/// temporary file is removed on failure.
std::optional<std::string> writeFileAtomically(const std::filesystem::path &path,
                                               std::string_view contents);

/// The bytes of `path`, or nullopt when it cannot be read.
std::optional<std::string> readFile(const std::filesystem::path &path);

} // namespace helion::tune
