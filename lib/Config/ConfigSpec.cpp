//===- ConfigSpec.cpp - A kernel's config keys and their legal values ------===//
//
// Which entries exist comes from the loop structure (Sites.h numbers the loops and
// sites); legal block sizes come from each decl's [min, max] and its size hint.
//===----------------------------------------------------------------------===//
#include "helion/Config/ConfigSpec.h"
#include "helion/Config/Sites.h"
#include "helion/Config/TemplateRules.h"
#include "helion/IR/AtomicTargets.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/Visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace helion::config {

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t nextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v && p < (int64_t{1} << 62))
    p <<= 1;
  return p;
}

static int64_t prevPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v)
    p <<= 1;
  return p;
}

std::string ConfigError::path() const {
  std::string p = key;
  if (index >= 0)
    p += fmt::format("[{}]", index);
  if (sub >= 0)
    p += fmt::format("[{}]", sub);
  return p;
}

namespace {

std::optional<int64_t> constHint(const ir::ExprRef& e) {
  if (e && e->kind == ir::ExprKind::Const && e->isInt && e->value >= 1)
    return static_cast<int64_t>(e->value);
  return std::nullopt;
}

std::string loopName(const ir::Kernel& k, const std::vector<int>& tiles) {
  std::string name;
  for (int t : tiles) {
    if (!name.empty())
      name += ", ";
    name += t >= 0 && t < static_cast<int>(k.tiles.size()) ? k.tiles[t].name
                                                            : fmt::format("tile{}", t);
  }
  return name;
}

/// Whether a block size tiles a jagged loop: its extent reads device values (a local
/// variable or a load, `hl::tile(start, end)` with loaded bounds).
bool jaggedExtent(const ir::BlockSizeDecl& decl) {
  bool jagged = false;
  if (decl.sizeHint)
    ir::walkExpr(*decl.sizeHint, [&](const ir::Expr& e) {
      jagged |= e.kind == ir::ExprKind::Var || e.kind == ir::ExprKind::Load;
    });
  return jagged;
}

BlockSizeSpec blockSizeSpec(const ir::Kernel& k, const ir::BlockSizeDecl& decl,
                            const SizeHints& hints) {
  BlockSizeSpec spec;
  spec.declId = decl.id;
  spec.name = decl.name;
  if (auto it = hints.blockSizes.find(decl.id); it != hints.blockSizes.end() && it->second >= 1)
    spec.hint = it->second;
  else
    spec.hint = constHint(decl.sizeHint);
  spec.jagged = jaggedExtent(decl);
  spec.min = nextPowerOfTwo(std::max<int64_t>(1, decl.min));
  spec.max = prevPowerOfTwo(std::max<int64_t>(1, decl.max));
  if (spec.hint)
    spec.max = std::min(spec.max, nextPowerOfTwo(*spec.hint));
  // No power of two inside [min, max] (or a hint below min): min is the one choice.
  spec.max = std::max(spec.max, spec.min);
  return spec;
}

ReductionLoopSpec reductionSpec(const ir::Kernel& k, const ir::Axis& axis, const SizeHints& hints) {
  ReductionLoopSpec spec;
  spec.axisId = axis.id;
  spec.name = fmt::format("a{}", axis.id);
  if (axis.param >= 0 && axis.param < static_cast<int>(k.params.size()))
    spec.name += fmt::format(" ({}.size({}))", k.params[axis.param].name, axis.dim);
  if (auto it = hints.axes.find(axis.id); it != hints.axes.end() && it->second >= 1) {
    spec.hint = it->second;
    // A chunk covering the whole axis is the persistent form: strictly smaller only.
    spec.maxChunk = nextPowerOfTwo(it->second) / 2; // 0 for an extent of 1: never looped
  }
  return spec;
}

/// The load sites persistent-loads may stage (see ConfigSpec::stageableSites): in a
/// kernel whose body is one grid loop, a `let` directly in it of a load by that
/// loop's tiles and whole dims (one tile at least: a load of whole dims only is
/// issued once, before a persistent loop; a whole dim last, unless the kernel has no
/// reduction axis), of a tensor never stored, into a variable never reassigned.
std::vector<int> stageableLoadSites(const ir::Kernel& k) {
  std::vector<int> out;
  if (k.body.size() != 1 || k.body[0]->kind != ir::StmtKind::For)
    return out;
  const ir::Stmt& grid = *k.body[0];
  std::set<int> stored, assigned;
  ir::walkStmts(k.body, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Store)
      stored.insert(s.param);
    if (s.kind == ir::StmtKind::Assign)
      assigned.insert(s.var);
  });
  std::set<const ir::Expr*> candidates;
  for (const ir::StmtRef& s : grid.body) {
    if (s->kind != ir::StmtKind::Let || !s->value || s->value->kind != ir::ExprKind::Load)
      continue;
    const ir::Expr& load = *s->value;
    if (load.gatherAll || (load.type && load.type->dims.empty()) || load.indices.empty() ||
        stored.count(load.param) || assigned.count(s->var) || ir::loadMask(load))
      continue;
    bool plain = true, tiled = false;
    for (const ir::Index& i : load.indices) {
      const bool ownTile = i.kind == ir::Index::Kind::Tile && !i.value &&
                           std::count(grid.tiles.begin(), grid.tiles.end(), i.tile) &&
                           !k.tiles.at(i.tile).isGrid;
      plain &= ownTile || (i.kind == ir::Index::Kind::All && !i.value);
      tiled |= ownTile;
    }
    // Staged loads are read along the program's innermost axis, and a whole reduction
    // axis is innermost wherever there is one: a load by tiles only is staged only in
    // a kernel without reduction axes (cross_entropy's labels[tn] never is).
    const bool lastWhole = load.indices.back().kind == ir::Index::Kind::All;
    if (plain && tiled && (lastWhole || k.axes.empty()))
      candidates.insert(&load);
  }
  for (const Site& site : loadStoreSites(k))
    if (site.load && candidates.count(site.load))
      out.push_back(site.index);
  return out;
}

} // namespace

/// The load sites that can take an eviction hint (ConfigSpec::hintableLoads), by
/// their position among the loads.
std::vector<int> hintableLoadSites(const ir::Kernel& k) {
  std::set<const ir::Expr*> lets;
  ir::walkStmts(k.body, [&](const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Let && s.value && s.value->kind == ir::ExprKind::Load)
      lets.insert(s.value.get());
  });
  std::vector<int> out;
  for (const Site& site : loadStoreSites(k)) {
    if (!site.load || !lets.count(site.load))
      continue;
    const ir::Expr& load = *site.load;
    if (load.gatherAll || ir::loadMask(load) || load.indices.empty())
      continue;
    const ir::Index& last = load.indices.back();
    const bool tile = (last.kind == ir::Index::Kind::Tile || last.kind == ir::Index::Kind::Flat) &&
                      !k.tiles.at(last.tile).isGrid;
    if (tile || last.kind == ir::Index::Kind::All)
      out.push_back(site.loadIndex);
  }
  return out;
}

std::vector<int> streamedLoadSites(const ir::Kernel& k, const std::vector<int>& hintable) {
  std::set<int> jaggedDecls; // indices into k.blockSizes, as ir::Tile::blockSize
  for (size_t i = 0; i < k.blockSizes.size(); ++i)
    if (jaggedExtent(k.blockSizes[i]))
      jaggedDecls.insert(static_cast<int>(i));
  std::vector<int> out;
  for (const Site& site : loadStoreSites(k)) {
    if (!site.load || !std::count(hintable.begin(), hintable.end(), site.loadIndex))
      continue;
    for (const ir::Index& ix : site.load->indices)
      if ((ix.kind == ir::Index::Kind::Tile || ix.kind == ir::Index::Kind::Flat) &&
          jaggedDecls.count(k.tiles.at(ix.tile).blockSize)) {
        out.push_back(site.loadIndex);
        break;
      }
  }
  return out;
}

ConfigSpec ConfigSpec::fromKernel(const ir::Kernel& k, const SizeHints& hints) {
  ConfigSpec spec;
  spec.kernelName = k.name;
  spec.kernel = std::make_shared<const ir::Kernel>(k);
  spec.hasDot = ir::containsDot(k);
  spec.contendedAtomics = ir::hasContendedAtomics(k);
  // The template that prints the kernel, as codegen::emitKernel dispatches it
  // (ir::dotTemplate): flash attention, or the matmul (a bmm and the grouped GEMM are
  // its forms). Dots of other shapes are the generic emitter's (the general lowering,
  // EmitDot.cpp): the generic kernel's keys and defaults, not the templates'.
  const ir::DotTemplate lowering = ir::dotTemplate(k);
  spec.attention = lowering == ir::DotTemplate::Attention;
  const ir::Stmt* groupedRows = ir::groupedMatmulRowLoop(k);
  spec.groupedMatmul = groupedRows != nullptr;
  spec.generalDot = spec.hasDot && lowering == ir::DotTemplate::None;
  if (spec.generalDot)
    spec.hasDot = false;

  std::vector<LoopInfo> loops = tileLoops(k);
  std::vector<bool> inGrid(k.blockSizes.size(), false);
  int gridLoops = 0, maxGridTiles = 0;
  for (const LoopInfo& loop : loops) {
    LoopSpec ls{loop.index, loop.isGrid, loop.tiles, loopName(k, loop.tiles), {}};
    if (loop.isGrid) {
      ++gridLoops;
      maxGridTiles = std::max(maxGridTiles, static_cast<int>(loop.tiles.size()));
      // The emitter orders and groups the program ids of grid loops only; the
      // device library's templates take their own tile order.
      if (loop.tiles.size() >= 2 && !spec.hasDot)
        spec.multiTileLoops.push_back(ls);
      if (loop.tiles.size() == 2 && !spec.attention)
        spec.l2Loops.push_back(ls);
      for (int t : loop.tiles)
        if (t >= 0 && t < static_cast<int>(k.tiles.size())) {
          int bs = k.tiles[t].blockSize;
          if (bs >= 0 && bs < static_cast<int>(inGrid.size()))
            inGrid[bs] = true;
        }
    } else {
      for (int t : loop.tiles)
        if (t >= 0 && t < static_cast<int>(k.tiles.size()) && k.tiles[t].blockSize >= 0)
          ls.blockSizeDecls.push_back(k.tiles[t].blockSize);
      spec.innerLoops.push_back(ls);
    }
  }

  // The grouped GEMM's row and column loops are the template's output tiles, run in
  // parallel like a grid loop's (BM x BN): their block sizes have the matmul's rules.
  if (groupedRows)
    for (int t : {groupedRows->tiles[0], groupedRows->body[0]->tiles[0]}) {
      int bs = t >= 0 && t < static_cast<int>(k.tiles.size()) ? k.tiles[t].blockSize : -1;
      if (bs >= 0 && bs < static_cast<int>(inGrid.size()))
        inGrid[bs] = true;
    }
  for (size_t i = 0; i < k.blockSizes.size(); ++i) {
    const ir::BlockSizeDecl& decl = k.blockSizes[i];
    if (decl.fixed) {
      if (inGrid[i])
        spec.fixedGridElements = std::min<int64_t>(
            spec.fixedGridElements * std::min<int64_t>(std::max<int64_t>(1, *decl.fixed), 1 << 20),
            int64_t{1} << 40);
      continue;
    }
    BlockSizeSpec bs = blockSizeSpec(k, decl, hints);
    bs.inGridLoop = inGrid[i];
    spec.blockSizes.push_back(std::move(bs));
  }
  if (!spec.attention)
    for (const ir::Axis& axis : k.axes)
      spec.reductionLoops.push_back(reductionSpec(k, axis, hints));

  for (const Site& site : loadStoreSites(k)) {
    ++spec.numSites;
    if (site.kind == Site::Kind::Load && !spec.hasDot)
      ++spec.numLoadSites;
  }
  if (!spec.hasDot) {
    // A kernel with general dots: num_stages is their pipeline's, no load is staged.
    if (!spec.generalDot)
      spec.stageableSites = stageableLoadSites(k);
    spec.hintableLoads = hintableLoadSites(k);
    spec.streamedLoads = streamedLoadSites(k, spec.hintableLoads);
  }

  spec.pidTypes = {PidType::Flat};
  if (gridLoops == 1 && maxGridTiles <= 3)
    spec.pidTypes.push_back(PidType::Xyz);
  if (gridLoops >= 1) {
    spec.pidTypes.push_back(PidType::PersistentBlocked);
    spec.pidTypes.push_back(PidType::PersistentInterleaved);
  }
  if (spec.groupedMatmul) // the tiles per group are known on the device only
    spec.pidTypes = {PidType::PersistentInterleaved};

  if (!spec.hasDot)
    spec.unrollLoops = spec.innerLoops;
  if (spec.matmul())
    if (std::optional<MatmulRules> rules = MatmulRules::of(k)) {
      rules->narrow(spec.blockSizes);
      // A product scaled per K block: tm 192 with 3 consumers is off the powers of two.
      if (const int i = rules->rowsConfigIndex(spec.defaultConfig());
          rules->tiles().kScaled && i >= 0) {
        BlockSizeSpec& rows = spec.blockSizes[static_cast<size_t>(i)];
        for (int64_t v : MatmulRules::scaledRowChoices())
          if (v >= rows.min && v <= rows.max)
            rows.choices.push_back(v);
      }
    }
  if (spec.attention) // flash attention's query rows: 192 is off the powers of two
    if (std::optional<AttentionRules> rules = AttentionRules::of(k))
      if (const int i = rules->rowsConfigIndex(spec.defaultConfig()); i >= 0) {
        BlockSizeSpec& rows = spec.blockSizes[static_cast<size_t>(i)];
        for (int64_t v : AttentionRules::rowChoices())
          if (v >= rows.min && v <= rows.max)
            rows.choices.push_back(v);
      }
  return spec;
}

std::vector<int64_t> ConfigSpec::blockSizeChoices(int i) const {
  if (!blockSizes[i].choices.empty())
    return blockSizes[i].choices;
  std::vector<int64_t> out;
  for (int64_t v = blockSizes[i].min; v <= blockSizes[i].max; v *= 2)
    out.push_back(v);
  return out;
}

std::vector<int> ConfigSpec::numWarpsChoices() const {
  if (attention)
    return AttentionRules::numWarpsChoices();
  if (matmul()) {
    std::optional<MatmulRules> rules = kernel ? MatmulRules::of(*kernel) : std::nullopt;
    return rules ? rules->numWarpsChoices() : std::vector<int>{8, 12};
  }
  std::vector<int> out;
  for (int w = 1; w <= kMaxNumWarps; w *= 2)
    out.push_back(w);
  return out;
}

std::vector<int> ConfigSpec::numStagesChoices() const {
  std::vector<int> out;
  // The general dot's ring: 4 buffers of its operands already pass 48 KB at 64 x 64
  // x 64 tiles of 16-bit operands (the kernel lowers it to what fits).
  const int most = attention || generalDot ? 4 : kMaxNumStages;
  for (int s = matmul() || attention ? 2 : 1; s <= most; ++s)
    out.push_back(s);
  return out;
}

std::vector<std::optional<int64_t>> ConfigSpec::reductionChoices(int i) const {
  std::vector<std::optional<int64_t>> out{std::nullopt};
  for (int64_t v = 1; v <= reductionLoops[i].maxChunk; v *= 2) // none when maxChunk is 0
    out.push_back(v);
  return out;
}

} // namespace helion::config
