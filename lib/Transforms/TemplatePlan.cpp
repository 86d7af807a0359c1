//===- TemplatePlan.cpp - A template's parameters under the config ---------===//
//
// For a kernel the matmul or the flash-attention template prints (ir::dotTemplate),
// checks the config against the family's rules (helion/Config/TemplateRules.h: the
// same rules config::validate reports with JSON paths) and stores the template
// parameters they map it to in the kernel (Kernel::gemm, Kernel::flash). The
// emitter prints them and the launcher reads them; neither reads the config.
// A kernel with two chained dots (Kernel::chain) gets the chain template's
// parameters (Kernel::chainParams) from the config's rows and hidden tiles
// (helion/Config/ChainRules.h); its generic kernel runs where the template does not.
// A rule the config breaks is an error at the grid loop (`config: <path>: <rule>`):
// configs that did not come from a file (a tuner's, the default of an odd kernel)
// meet the same rules as those that did.
//
//   for %tm, %tn in tile(...) ...       // block_sizes [128, 256, 64], 12 warps ...
//   template: gemm sm90 128x256 stages 4 consumers 2 persistent group_m 8;
//             sm80 128x256 stages 4
//===----------------------------------------------------------------------===//
#include "helion/Config/ChainRules.h"
#include "helion/Config/TemplateRules.h"
#include "helion/IR/TemplateMatch.h"
#include "helion/Transforms/Passes.h"

namespace helion::ir {
namespace {

void report(const std::vector<config::ConfigError>& errs, const Stmt& grid, PassContext& ctx) {
  for (const config::ConfigError& e : errs)
    ctx.diags.error(grid.loc, "config: " + e.path() + ": " + e.rule);
}

/// GemmParams::groupedRows: a grouped GEMM of B [G, K, N] without A prologue or K
/// scale whose epilogue is `out[tm, tn] = acc` alone (the row-fitting kernel stores
/// the accumulator and calls no epilogue functor).
bool groupedRowsFit(const MatmulMatch& m, const GemmParams& p) {
  if (m.tileG < 0 || m.bTransposed || m.aPrologue || m.kScaled || !p.sm90 || !p.tmaStore ||
      m.epilogue.size() != 1)
    return false;
  const Stmt& s = *m.epilogue.front();
  return s.kind == StmtKind::Store && !s.atomicAdd && !s.mask && s.value &&
         s.value->kind == ExprKind::Var && s.value->var == m.accVar && s.indices.size() == 2 &&
         s.indices[0].kind == Index::Kind::Tile && s.indices[0].tile == m.tileM &&
         s.indices[1].kind == Index::Kind::Tile && s.indices[1].tile == m.tileN;
}

} // namespace

Kernel templatePlan(const Kernel& kernel, PassContext& ctx) {
  Kernel k = kernel;
  k.gemm.reset();
  k.flash.reset();
  k.chainParams.reset();
  if (!ctx.config)
    return k;
  if (kernel.chain) { // the chain template's tiles from the config's (ChainRules.h)
    auto chosen = [&](int tile) {
      return kernel.blockSizes.at(kernel.tiles.at(tile).blockSize).chosen.value_or(0);
    };
    k.chainParams = config::chainParams(chosen(kernel.chain->tileM), chosen(kernel.chain->tileH),
                                        ctx.config->numStages);
    return k;
  }
  if (std::optional<config::MatmulRules> rules = config::MatmulRules::of(kernel)) {
    GemmParams p;
    std::vector<config::ConfigError> errs = rules->check(*ctx.config, &p);
    p.groupedRows = kernel.matmul && groupedRowsFit(*kernel.matmul, p);
    if (errs.empty())
      k.gemm = p;
    report(errs, *rules->tiles().grid, ctx);
  } else if (std::optional<config::AttentionRules> rules = config::AttentionRules::of(kernel)) {
    AttentionParams p;
    std::vector<config::ConfigError> errs = rules->check(*ctx.config, &p);
    if (errs.empty())
      k.flash = p;
    report(errs, *rules->tiles().grid, ctx);
  }
  return k;
}

} // namespace helion::ir
