//===- Pipeline.cpp - The pass table and how a driver runs it --------------===//
//
// The one list of passes. `helionc compile --print-after`, `--stop-after`, the
// verifier and docs/passes.md all follow it:
//
//   frontend        the IR as the frontend leaves it (a stage, not a pass)
//   infer-types     analysis   once per kernel
//   flatten-grid    analysis   once per kernel
//   hoist-blocks    analysis   once per kernel
//   accumulate-partials analysis once per kernel
//   apply-config    config     once per config, at the start of code generation
//   grid-mapping    config     once per config
//   privatize-atomics config   once per config
//   mma-layout      config     once per config
//   thread-layout   config     once per config
//   rand-runs       config     once per config
//   persistent-loads config    once per config
//===----------------------------------------------------------------------===//
#include "helion/Transforms/Passes.h"
#include "helion/IR/Printer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ostream>

namespace helion::ir {

const std::vector<Pass>& pipeline() {
  static const std::vector<Pass> passes = {
      {"infer-types", "dims and element types of every value, reduction axes", inferTypes, false},
      {"flatten-grid", "an independent tile loop, a grid loop's only statement, joins the grid",
       flattenGrid, false},
      {"hoist-blocks", "one load, reduction, creation or dot per statement", hoistBlocks, false},
      {"accumulate-partials", "sums over a tile loop kept per element, reduced after it",
       accumulatePartials, false},
      {"apply-config",
       "block sizes, reduction loops, unroll factors, eviction hints, launch: resolved",
       applyConfig, true},
      {"grid-mapping", "program ids to tiles: pid type, tile order, L2 grouping", gridMapping,
       true},
      {"privatize-atomics", "atomic adds of persistent programs into shared-memory copies",
       privatizeAtomics, true},
      {"online-softmax", "amax and sum(exp(x - max)) over a looped axis paired: one pass",
       onlineSoftmax, true},
      {"mma-layout", "general dots on mma.sync fragments: tile roles, operands, pipeline",
       mmaLayout, true},
      {"thread-layout", "the CTA's layout axes: their order, vectorized axes, shared threads",
       threadLayout, true},
      {"rand-runs", "hl::rand offsets that step by one along a vectorized tile: Philox per run",
       randRuns, true},
      {"persistent-loads", "a persistent program's loads: hoisted before its loop, staged",
       persistentLoads, true},
      {"rematerialize", "cheap lets over a reduction axis recomputed at each use",
       rematerialize, true},
      {"recognize-templates", "a template's loop checked and recorded: matmul or attention",
       recognizeTemplates, true},
      {"template-plan", "a matmul / attention template's parameters, by its family's rules",
       templatePlan, true},
  };
  return passes;
}

bool isStageName(const std::string& name) {
  if (name == "frontend")
    return true;
  return std::any_of(pipeline().begin(), pipeline().end(),
                     [&](const Pass& p) { return name == p.name; });
}

std::string stageNames() {
  std::string out = "frontend";
  for (const Pass& p : pipeline())
    out += std::string(", ") + p.name;
  return out;
}

bool PipelineOptions::defaultVerifyEach() {
  const char* env = std::getenv("HELIONC_VERIFY_EACH");
  if (env && *env)
    return std::strcmp(env, "0") != 0;
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

bool PipelineOptions::printsAfter(const std::string& stage) const {
  return std::find(printAfter.begin(), printAfter.end(), stage) != printAfter.end() ||
         std::find(printAfter.begin(), printAfter.end(), "all") != printAfter.end();
}

namespace {

/// Prints the IR after `stage` when asked to; true when the run stops there.
bool after(const std::string& stage, const Kernel& k, const PipelineOptions& o) {
  const bool stop = o.stopAfter == stage;
  if (o.out && (stop || o.printsAfter(stage)))
    *o.out << "// -----// IR after " << stage << " //----- //\n" << printKernel(k);
  return stop;
}

} // namespace

std::optional<Kernel> runPasses(Kernel k, const std::vector<Pass>& passes, PassContext& ctx,
                                const PipelineOptions& o, bool* stopped) {
  if (stopped)
    *stopped = false;
  const int errorsBefore = ctx.diags.errorCount();
  for (const Pass& pass : passes) {
    k = pass.run(k, ctx);
    if (ctx.diags.errorCount() != errorsBefore)
      return std::nullopt;
    // Analysis passes run once per kernel and are always verified; config passes run
    // once per config (the tuner's many candidates) and are verified on request.
    if ((!pass.needsConfig || o.verifyEach) && !verifyKernel(k, ctx.diags, pass.name, true))
      return std::nullopt;
    if (after(pass.name, k, o)) {
      if (stopped)
        *stopped = true;
      return k;
    }
  }
  return k;
}

std::optional<Kernel> runPipeline(Kernel k, bool configPart, PassContext& ctx,
                                  const PipelineOptions& o, bool* stopped) {
  if (stopped)
    *stopped = false;
  if (!configPart) {
    // The frontend's IR is verified whatever the flags: it is checked once per kernel,
    // and an invalid tree would crash the passes instead of reporting an error.
    if (!verifyKernel(k, ctx.diags, "frontend", false))
      return std::nullopt;
    if (after("frontend", k, o)) {
      if (stopped)
        *stopped = true;
      return k;
    }
  }
  std::vector<Pass> part;
  for (const Pass& pass : pipeline())
    if (pass.needsConfig == configPart)
      part.push_back(pass);
  return runPasses(std::move(k), part, ctx, o, stopped);
}

} // namespace helion::ir
