//===- helion/Config/DefaultEntries.h - Defaults picked by shape at run time -*- C++ -*-===//
//
// With no config file, `helionc compile` cannot know the sizes a kernel will meet, and
// the best default of a row kernel depends on its row length (rows per program, warps),
// that of flash attention on its head dim (consumer warpgroups).
// So it compiles the default config at several representative row lengths as
// shape-keyed entries, and the launcher picks the nearest by shape at each call
// (helion/runtime/ShapeDispatch.h), as it does for a tuned file.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigJson.h"
#include "helion/IR/IR.h"

#include <vector>

namespace helion::config {

/// The row lengths the default entries are made for (powers of two, 256 to 65536).
const std::vector<int64_t>& defaultRowLengths();

/// The entries `helionc compile` uses without a config file. Entry 0 is the default
/// config with no sizes known, tuned for no shape (what `--emit cuda` shows; the
/// launcher's fallback). Then, for a kernel whose default depends on a row length (a
/// reduction axis, or an inner tile loop whose block size tiles a tensor dim: its extent
/// that tensor's size, or a host scalar and the dim its tiles subscript), one entry
/// per defaultRowLengths() L: keyed by every tensor on those dims, with L on them and
/// 4096 on the tensors' other dims (the same in every entry, so only the row length
/// decides between them), and the default config for those sizes. Flash attention with
/// a specialized head dim (causal or not): entries keyed by head
/// dim 64 (3 consumer warpgroups) and 128 (the default; DefaultEntries.cpp). Other
/// kernels with `hl::dot`, or with no such dims, get entry 0 alone.
std::vector<ShapedConfig> defaultEntries(const ir::Kernel& k);

} // namespace helion::config
