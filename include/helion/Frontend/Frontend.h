//===- helion/Frontend/Frontend.h - C++ kernels to IR ------------*- C++ -*-===//
//
// The frontend parses a kernel file with Clang (the only part of helionc that
// includes Clang headers), finds every `HELION_KERNEL` function, and turns its
// top-level `hl::tile`/`hl::grid` loops into one ir::Kernel. Host code is left
// alone: the frontend only records where it is, for the host rewriter.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <optional>
#include <string>
#include <vector>

namespace helion::frontend {

/// Byte ranges in the source file that the host rewriter needs (offsets into the file text).
struct HostRegion {
  unsigned begin = 0, end = 0; ///< [begin, end)
};

struct HostInfo {
  HostRegion function;                 ///< the whole definition, HELION_KERNEL included
  HostRegion body;                     ///< the function body's braces
  HostRegion params;                   ///< the parameter list, inside its parentheses
  std::vector<HostRegion> defaultArgs; ///< ` = value` after each defaulted parameter's name
  std::vector<HostRegion> deviceLoops; ///< each top-level device loop statement, in order
  struct BlockSizeCall {
    HostRegion call;                   ///< `hl::register_block_size(...)`
    int blockSize;                     ///< index into Kernel::blockSizes
    unsigned declBegin;                ///< where its variable's declaration begins
  };
  std::vector<BlockSizeCall> registerBlockSizeCalls;
  struct Capture {
    int param;                         ///< index into Kernel::params
    std::string expr;                  ///< how host code names it (`out`, `m`, `x`)
  };
  std::vector<Capture> captures;       ///< one per kernel parameter, in order
};

struct ParsedKernel {
  ir::Kernel kernel;
  HostInfo host;
};

struct ParseResult {
  std::string file;
  std::string text; ///< the file's contents, which HostRegion offsets index
  std::vector<ParsedKernel> kernels;
  /// Every file Clang read (this one, each header it includes, system headers too),
  /// as Clang named them (relative names are relative to the working directory).
  std::vector<std::string> filesRead;
};

struct ParseOptions {
  std::vector<std::string> clangArgs; ///< extra arguments for Clang (`-D`, `-I`, ...)
  std::string includeDir;             ///< the directory holding helion/hl.h
  /// Where <helion/hl.h> is kept precompiled (lib/Frontend/PrecompiledHeader.h); ""
  /// parses it from source every time.
  std::string pchDir;
  bool pchLog = false; ///< one line on stderr per decision about the precompiled hl.h
};

/// Parses `file`, reports every problem to `diags` (Clang's own errors too, as
/// file:line:col: error: ...) and returns nullopt if there were errors.
std::optional<ParseResult> parseKernels(const std::string& file, const ParseOptions& options,
                                        DiagnosticEngine& diags);

/// The Clang resource directory used for builtin headers: $HELIONC_CLANG_RESOURCE_DIR
/// when set, else `<exe dir>/../lib/clang/<major>` when it holds include/stddef.h (a
/// packed helionc, scripts/pack_helionc.sh), else the one of the Clang helionc was
/// built against.
std::string clangResourceDir();

} // namespace helion::frontend
