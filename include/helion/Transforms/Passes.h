//===- helion/Transforms/Passes.h - The lowering pipeline --------*- C++ -*-===//
//
// Each pass is one free function in its own file, `Kernel pass(const Kernel&,
// PassContext&)`. `pipeline()` lists them once, in order: the analysis passes, run
// once per kernel before any config is known, then the config passes, run once per
// config (PassContext::config set) at the start of code generation. The same table
// drives `--print-after`, `--stop-after` and the verifier (runPipeline).
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"
#include "helion/Support/Diagnostics.h"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace helion::config {
struct Config;
}

namespace helion::ir {

struct PassContext {
  DiagnosticEngine& diags;
  const config::Config* config = nullptr; ///< null before the config is known
};

using PassFn = std::function<Kernel(const Kernel&, PassContext&)>;
struct Pass {
  const char* name; ///< the --print-after / --stop-after spelling, e.g. "infer-types"
  const char* summary;
  PassFn run;
  bool needsConfig; ///< a config pass: runs once per config, PassContext::config set
};

/// Joins a grid loop's only statement, a tile loop whose iterations are independent,
/// into the grid: `for tm { for tn { ... } }` becomes `for tm, tn { ... }`
/// (FlattenGrid.cpp).
Kernel flattenGrid(const Kernel& kernel, PassContext& ctx);

/// Types every expression (dims and element types) and finds the reduction axes.
/// Reports broadcasting and rank errors at their locations.
Kernel inferTypes(const Kernel& kernel, PassContext& ctx);

/// Hoists loads, reductions, creations and dots out of expression trees into their
/// own `let`s, so every remaining expression is elementwise.
Kernel hoistBlocks(const Kernel& kernel, PassContext& ctx);

/// Keeps the sums a tile loop adds to an accumulator as elementwise partial sums over
/// the tile and reduces them once after the loop (AccumulatePartials.cpp).
Kernel accumulatePartials(const Kernel& kernel, PassContext& ctx);

/// Resolves the config's plain entries under the config, once: every block size
/// (BlockSizeDecl::chosen), every reduction axis's reduction_loops entry
/// (Axis::loopChunk), every inner loop's range_unroll_factors entry (Stmt::unroll), every
/// hintable load's load_eviction_policies entry (Expr::eviction) and the launch of a
/// kernel the generic emitter prints (Kernel::launch).
Kernel applyConfig(const Kernel& kernel, PassContext& ctx);

/// Decides how program ids map to the tiles of each grid loop (Stmt::grid): pid type,
/// tile order (loop_orders), L2 grouping (l2_groupings).
Kernel gridMapping(const Kernel& kernel, PassContext& ctx);

/// Marks the hl::atomic_add statements of a persistent kernel into tensors nothing else
/// touches `private`: each program adds into its own shared-memory copy and flushes it
/// once (PrivatizeAtomics.cpp).
Kernel privatizeAtomics(const Kernel& kernel, PassContext& ctx);

/// Pairs `let m = amax(X, d)` over a looped reduction axis with a later
/// `let s = sum(exp(X - m), d)` (Stmt::onlineSum, Stmt::fused): one pass over the
/// chunks computes both (OnlineSoftmax.cpp).
Kernel onlineSoftmax(const Kernel& kernel, PassContext& ctx);

/// Lays out the general dots of a generic kernel on mma.sync fragments where they fit
/// (helion/IR/MmaPlan.h): tile roles, each dot's operands, the pipelined dot
/// (MmaLayout.cpp).
Kernel mmaLayout(const Kernel& kernel, PassContext& ctx);

/// Decides the CTA's thread layout of a kernel the generic emitter prints
/// (Kernel::threadLayout): the order of its tiles and reduction axes, which are
/// vectorized, and which go past which (ThreadLayout.cpp).
Kernel threadLayout(const Kernel& kernel, PassContext& ctx);

/// Marks each hl::rand whose offsets step by one along a vectorized tile of the
/// layout (Expr::randRunTile): a thread's run of numbers along it comes from whole
/// Philox blocks (RandRuns.cpp).
Kernel randRuns(const Kernel& kernel, PassContext& ctx);
/// Marks the loads of a persistent program that are issued once before its loop
/// (Stmt::hoisted) and those copied ahead into shared memory (Stmt::staged, indexing
/// block_ptr), with the loop's stages (num_stages) (PersistentLoads.cpp).
Kernel persistentLoads(const Kernel& kernel, PassContext& ctx);

/// Marks the lets over a reduction axis that are recomputed at each use instead of held
/// in registers (Stmt::recompute): cheap elementwise values, or any elementwise value
/// used once (Rematerialize.cpp).
Kernel rematerialize(const Kernel& kernel, PassContext& ctx);

/// For a kernel a tensor-core template prints (ir::dotTemplate): checks its loop
/// against the template's pattern (reporting what does not fit, located) and records
/// the match (Kernel::matmul, Kernel::attention; RecognizeTemplates.cpp).
Kernel recognizeTemplates(const Kernel& kernel, PassContext& ctx);

/// Whether the matmul template takes `kernel`, a kernel ir::dotTemplate sends to it: its
/// recognizer (MatmulRecognizer.h) matches the loop. Asked silently; when it does not,
/// `why` (if given) gets the recognizer's first error. A kernel it does not take runs
/// its dots on the general lowering instead (Kernel::generalDots, set by the driver).
bool matmulTemplateTakes(const Kernel& kernel, Diagnostic* why = nullptr);

/// For a kernel a tensor-core template prints (ir::dotTemplate): checks the config by
/// the family's rules (helion/Config/TemplateRules.h) and stores the template's
/// parameters (Kernel::gemm, Kernel::flash); a broken rule is an error at the grid loop
/// (TemplatePlan.cpp).
Kernel templatePlan(const Kernel& kernel, PassContext& ctx);

/// Checks the IR's structural invariants (Verify.cpp) and reports each violation as an
/// internal compiler error naming `stage` (the pass that ran last). `typed`: the kernel
/// has been through infer-types. Returns true when the kernel is valid.
bool verifyKernel(const Kernel& kernel, DiagnosticEngine& diags, const std::string& stage,
                  bool typed);

/// Every pass, in pipeline order (analysis passes first, then config passes).
const std::vector<Pass>& pipeline();

/// "frontend" (the IR as the frontend leaves it) or the name of a pass of pipeline().
bool isStageName(const std::string& name);
/// The stage names, comma-separated, for --help and usage errors.
std::string stageNames();

/// What a driver asks of a run of the pipeline.
struct PipelineOptions {
  std::vector<std::string> printAfter; ///< stage names, or "all"
  std::string stopAfter;               ///< a stage name: the run ends after it; empty: none
  /// Verify after every config pass too (the frontend's IR and the analysis passes,
  /// run once per kernel, are always verified). On by default in builds without
  /// NDEBUG; `--verify-each` or HELIONC_VERIFY_EACH=1 in release builds.
  bool verifyEach = defaultVerifyEach();
  std::ostream* out = nullptr; ///< where --print-after output goes (null: nowhere)

  static bool defaultVerifyEach();
  bool printsAfter(const std::string& stage) const;
};

/// Runs the analysis part (`configPart` false: the frontend's IR in, the analysed IR
/// out) or the config part (`configPart` true, ctx.config set) of the pipeline on `k`,
/// printing and verifying as `o` asks. Returns nullopt when a pass reported an error or
/// the verifier failed. `*stopped` (when given) is set when the run reached
/// o.stopAfter: the kernel returned is the IR after that stage.
std::optional<Kernel> runPipeline(Kernel k, bool configPart, PassContext& ctx,
                                  const PipelineOptions& o, bool* stopped = nullptr);

/// Runs `passes` in order on `k` as runPipeline runs its part (the pieces of it that
/// tests exercise with passes of their own): a pass that reports an error ends the
/// run; the verifier follows each pass that needs no config, and each config pass
/// when o.verifyEach.
std::optional<Kernel> runPasses(Kernel k, const std::vector<Pass>& passes, PassContext& ctx,
                                const PipelineOptions& o, bool* stopped = nullptr);

} // namespace helion::ir
