//===- CompileConfig.h - The config file of helionc compile -----*- C++ -*-===//
#pragma once

#include "Driver.h"
#include "helion/CodeGen/HostRewriter.h"
#include "helion/Config/ConfigJson.h"

#include <optional>
#include <string>
#include <vector>

namespace helion::tool {

/// The config file at `path` for kernel `k` (empty: its default entries at several row
/// lengths, picked by shape at run time); errors reported (JSON errors located, at most
/// 20 config errors shown), nullopt on any.
std::optional<config::ConfigFile> loadConfig(const std::string& path, const AnalyzedKernel& k,
                                             DiagnosticEngine& diags);

/// The candidates of a "choose" entry agree on the values the host code reads
/// (hl::register_block_size); false after reporting those that do not.
bool checkChoices(const std::vector<codegen::HostKernel>& hosts, const AnalyzedKernel& k,
                  const std::string& path, DiagnosticEngine& diags);

/// Shape and dtype keys name the kernel's own tensor parameters (shapes with their
/// rank); false after reporting those that do not.
bool checkShapeKeys(const config::ConfigFile& file, const ir::Kernel& k, const std::string& path,
                    DiagnosticEngine& diags);

/// The entry of `file` whose program `--emit cubin|ptx` compiles for a dtype signature:
/// the first whose `dtypes` are the signature's tensors' dtypes, else entry 0.
size_t entryForSignature(const config::ConfigFile& file, const ir::Kernel& k,
                         const std::vector<ir::ScalarType>& signature);

/// The comment line `--emit cuda` prints before entry `e` of a kernel's several
/// entries: the kernel, the entry, its file (`path`; empty: the default entries), its
/// shape and dtype keys and its config, e.g.
/// `// helionc: kernel 'softmax', entry 1 of 3 of 'best.json' (x=64x8192): {...}`.
std::string entryBanner(const AnalyzedKernel& k, const config::ConfigFile& file, size_t e,
                        const std::string& path);

} // namespace helion::tool
