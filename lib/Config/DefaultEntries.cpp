//===- DefaultEntries.cpp - Defaults picked by shape at run time -----------===//
#include "helion/Config/DefaultEntries.h"

#include "helion/Config/ConfigSpec.h"

#include <set>

namespace helion::config {
namespace {

constexpr int64_t kNominal = 4096; ///< the size of every keyed dim that is not a row dim

/// The (param, dim) pairs whose size is a row length: every tensor dim of a reduction
/// axis, and the tensor dim an inner (non-grid) loop's block size tiles.
std::set<std::pair<int, int>> rowDims(const ir::Kernel& k, const ConfigSpec& spec) {
  std::set<std::pair<int, int>> dims;
  for (const ir::Axis& axis : k.axes)
    for (const auto& pd : axis.tensorDims)
      dims.insert(pd);
  for (const BlockSizeSpec& bs : spec.blockSizes) {
    if (bs.inGridLoop)
      continue;
    for (const ir::BlockSizeDecl& decl : k.blockSizes)
      if (decl.id == bs.declId && decl.sizeHint &&
          decl.sizeHint->kind == ir::ExprKind::TensorSize)
        dims.insert({decl.sizeHint->param, decl.sizeHint->dim});
  }
  return dims;
}

} // namespace

const std::vector<int64_t>& defaultRowLengths() {
  static const std::vector<int64_t> lengths = {256, 1024, 4096, 16384, 65536};
  return lengths;
}

std::vector<ShapedConfig> defaultEntries(const ir::Kernel& k) {
  const ConfigSpec unhinted = ConfigSpec::fromKernel(k);
  std::vector<ShapedConfig> entries = {{{}, unhinted.defaultConfig()}};
  if (unhinted.hasDot || unhinted.generalDot)
    return entries;
  std::set<std::pair<int, int>> rows = rowDims(k, unhinted);
  // Only tensors of known rank, not captured (the launcher's shape key names parameters).
  std::set<int> keyed;
  for (const auto& [param, dim] : rows)
    if (param >= 0 && param < static_cast<int>(k.params.size()) &&
        k.params[param].kind == ir::Param::Kind::Tensor && !k.params[param].captured &&
        k.params[param].rank > dim && dim >= 0)
      keyed.insert(param);
  if (keyed.empty())
    return entries;
  for (int64_t length : defaultRowLengths()) {
    Shapes shapes;
    for (int param : keyed) {
      std::vector<int64_t> sizes(static_cast<size_t>(k.params[param].rank), kNominal);
      for (int d = 0; d < k.params[param].rank; ++d)
        if (rows.count({param, d}))
          sizes[static_cast<size_t>(d)] = length;
      shapes[k.params[param].name] = sizes;
    }
    ConfigSpec spec = ConfigSpec::fromKernel(k, sizeHintsFor(k, shapes));
    entries.push_back({shapes, spec.defaultConfig()});
  }
  return entries;
}

} // namespace helion::config
