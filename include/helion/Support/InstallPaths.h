//===- helion/Support/InstallPaths.h - Where helionc's own files are -*- C++ -*-===//
//
// helionc needs files besides itself: <helion/hl.h> (every kernel includes it) and,
// for `helionc tune`, libhelion_runtime.a. An installed (`cmake --install`) or packed
// (scripts/pack_helionc.sh) helionc finds them relative to its own executable:
//
//   PREFIX/bin/helionc
//   PREFIX/include/helion/hl.h           helionIncludeDir()     = PREFIX/include
//   PREFIX/lib/libhelion_runtime.a       helionRuntimeLibrary() = that file
//
// A helionc run from its build tree (BUILD/bin/helionc) uses the source tree's include/
// and the build's runtime instead; an installed one never does. An environment
// variable overrides each (HELIONC_HL_INCLUDE, HELIONC_RUNTIME_LIB).
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace helion {

/// The directory of the running executable (from /proc/self/exe, symlinks resolved),
/// "" when unknown.
std::string executableDir();

/// `<exe dir>/../relDir`, normalized, when `<that>/probe` exists; else "".
std::string findBesideExecutable(std::string_view relDir, std::string_view probe);

/// The directory holding helion/hl.h: $HELIONC_HL_INCLUDE when set, else
/// `<exe dir>/../include` when it holds helion/hl.h, else the source tree's include/
/// when running from the build tree's bin/; "" when none applies.
std::string helionIncludeDir();

/// The runtime library `helionc tune` links its benchmark programs with:
/// $HELIONC_RUNTIME_LIB when set, else `<exe dir>/../lib/libhelion_runtime.a` when it
/// exists, else the build's when running from the build tree's bin/; "" when none.
std::string helionRuntimeLibrary();

} // namespace helion
