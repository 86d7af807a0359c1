//===- DefaultEntries.cpp - Defaults picked by shape at run time -----------===//
#include "helion/Config/DefaultEntries.h"

#include "helion/Config/ConfigSpec.h"
#include "helion/Config/TemplateRules.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/Visitor.h"

#include <map>
#include <set>

namespace helion::config {
namespace {

constexpr int64_t kNominal = 4096; ///< the size of every keyed dim that is not a row dim

/// (param, dim) of a tensor dim, by BlockSizeDecl id.
using ExtentDims = std::map<int, std::pair<int, int>>;

/// The block sizes whose extent is a host scalar (`auto [m, n] = x.shape<2>()` then
/// `hl::tile(n)`): for each, the (param, dim) of the first tensor a load subscripts with
/// one of its tiles, the tensor dim that scalar most likely is (none when no load does).
ExtentDims scalarExtentDims(const ir::Kernel& k) {
  ExtentDims out;
  auto declOf = [&](int tile) -> const ir::BlockSizeDecl& {
    return k.blockSizes.at(static_cast<size_t>(k.tiles.at(tile).blockSize));
  };
  ir::walkExprs(k.body, [&](const ir::Expr& e) {
    if (e.kind != ir::ExprKind::Load || e.gatherAll)
      return;
    int dim = 0;
    for (const ir::Index& ix : e.indices) {
      if (ix.kind == ir::Index::Kind::Flat)
        return;
      if (ix.kind == ir::Index::Kind::NewAxis)
        continue;
      if (ix.kind == ir::Index::Kind::Tile && declOf(ix.tile).sizeHint &&
          declOf(ix.tile).sizeHint->kind == ir::ExprKind::Param)
        out.emplace(declOf(ix.tile).id, std::pair{e.param, dim}); // the first load's only
      ++dim;
    }
  });
  return out;
}

/// The (param, dim) pairs whose size is a row length: every tensor dim of a reduction
/// axis, and the tensor dim an inner (non-grid) loop's block size tiles (its extent's
/// tensor size, or for a host scalar extent, its entry of `scalarDims`).
std::set<std::pair<int, int>> rowDims(const ir::Kernel& k, const ConfigSpec& spec,
                                      const ExtentDims& scalarDims) {
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
    if (auto it = scalarDims.find(bs.declId); it != scalarDims.end())
      dims.insert(it->second);
  }
  return dims;
}

/// sizeHintsFor(k, shapes), and each block size with a host scalar extent sized as its
/// tensor dim (`scalarDims`) in `shapes` (that tensor keyed), which sizeHintsFor cannot
/// know.
SizeHints entryHints(const ir::Kernel& k, const Shapes& shapes, const ExtentDims& scalarDims) {
  SizeHints hints = sizeHintsFor(k, shapes);
  for (const auto& [declId, pd] : scalarDims) {
    auto it = shapes.find(k.params.at(static_cast<size_t>(pd.first)).name);
    if (it != shapes.end() && pd.second < static_cast<int>(it->second.size()))
      hints.blockSizes.emplace(declId, it->second[static_cast<size_t>(pd.second)]);
  }
  return hints;
}

/// Flash attention whose head dim is a parameter (hl::specialize): entries keyed by head
/// dim 64 and 128 on q, k and v (those
/// of known rank 3 loaded as x[tb, t, hl::all]; [4096, 4096, d], so only d decides).
/// At 64 the sm90 kernel runs 3 consumer warpgroups (192 x 128, 16 warps), at 128 the
/// default's 2: H100, session 22, 1.10-1.14x the default at d = 64 and 1.01-1.07 of SDPA,
/// what `helionc tune` finds; at 128, 3 consumers spill (0.54x). Scores that read the tile
/// indices too: with the causal mask each consumer warpgroup reads the key blocks up to
/// its own diagonal (AttentionSm90::consumerBlocks), and 3 consumers ran causal d = 64
/// 1.08-1.09x the 2 of before (H200, session 25; 1.02x at s = 1024).
void addAttentionEntries(const ir::Kernel& k, const ConfigSpec& spec,
                         std::vector<ShapedConfig>& entries) {
  std::optional<AttentionRules> rules = AttentionRules::of(k);
  const ir::TemplateTiles t = ir::templateTiles(k);
  const Config def = spec.defaultConfig();
  if (!rules || !t.grid || !t.headDim || t.headDim->kind == ir::ExprKind::Const ||
      rules->rowsConfigIndex(def) < 0)
    return;
  std::set<int> qkv;
  ir::walkExprs(t.grid->body, [&](const ir::Expr& e) {
    if (e.kind == ir::ExprKind::Load && e.indices.size() == 3 &&
        e.indices[2].kind == ir::Index::Kind::All && e.param >= 0 &&
        e.param < static_cast<int>(k.params.size()) && !k.params[e.param].captured &&
        k.params[e.param].rank == 3)
      qkv.insert(e.param);
  });
  if (qkv.empty()) // q at least (k and v may be of unknown rank: then not keyed)
    return;
  for (int64_t d : {64, 128}) {
    Shapes shapes;
    for (int param : qkv)
      shapes[k.params[param].name] = {kNominal, kNominal, d};
    Config c = def;
    if (d == 64)
      rules->setConsumers(c, 16);
    if (!validate(c, spec).empty())
      return;
    entries.push_back({shapes, c});
  }
}

} // namespace

const std::vector<int64_t>& defaultRowLengths() {
  // Every power of two: with a gap of 4, a row between two lengths took the default of a
  // row 2 to 4 times shorter or longer (layer_norm over 10240: 4 or 16 warps, 0.61 and
  // 0.75 of the 8 warps at 8192; H200, session 23).
  static const std::vector<int64_t> lengths = {256,  512,   1024,  2048, 4096,
                                               8192, 16384, 32768, 65536};
  return lengths;
}

std::vector<ShapedConfig> defaultEntries(const ir::Kernel& k) {
  const ConfigSpec unhinted = ConfigSpec::fromKernel(k);
  std::vector<ShapedConfig> entries = {{{}, unhinted.defaultConfig()}};
  if (unhinted.attention)
    addAttentionEntries(k, unhinted, entries);
  if (unhinted.hasDot || unhinted.generalDot)
    return entries;
  const ExtentDims scalarDims = scalarExtentDims(k);
  std::set<std::pair<int, int>> rows = rowDims(k, unhinted, scalarDims);
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
    ConfigSpec spec = ConfigSpec::fromKernel(k, entryHints(k, shapes, scalarDims));
    entries.push_back({shapes, spec.defaultConfig()});
  }
  return entries;
}

} // namespace helion::config
