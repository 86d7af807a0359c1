//===- CompileCuda.cpp - A typed kernel and a config to CUDA ----------------===//
//
// The one sequence every caller of the CUDA backend runs (helionc compile, the tuner):
// the config passes of ir::pipeline() decide the kernel under the config, the size
// check refuses configs NVRTC would take hours on (ResourceCheck.cpp), codegen prints
// the decided IR, and a kernel whose reductions keep whole rows in registers gets a
// second program for rows too long for them (the long-rows variant: the same kernel
// under config::longRowsConfig, decided again). A 2-D matmul template kernel gets the
// same loop on the general lowering for operands the template cannot read (its default
// config there). lib/CodeGen itself reads no config.
//===----------------------------------------------------------------------===//
#include "helion/Driver/CompileCuda.h"

#include "ResourceCheck.h"
#include "helion/Config/ConfigJson.h"
#include "helion/Config/ConfigSpec.h"
#include "helion/Config/UnrolledSize.h"
#include "helion/IR/DotShape.h"
#include "helion/Transforms/Passes.h"

#include <sstream>

namespace helion::driver {

using codegen::EmitOptions;
using codegen::EmittedKernel;
using codegen::TemplateArg;
using config::kLongRowElems;

namespace {

/// The kernel after the config passes, or nullopt (errors reported).
std::optional<ir::Kernel> decide(const ir::Kernel& kernel, const config::Config& config,
                                 const ir::PipelineOptions& pipeline, DiagnosticEngine& diags) {
  ir::PassContext ctx{diags, &config};
  return ir::runPipeline(kernel, /*configPart=*/true, ctx, pipeline);
}

/// A 2-D matmul template kernel's fallback: the same kernel with its dots on the
/// general lowering, under that lowering's default config; nullopt when it does not
/// compile (the launcher then keeps refusing what the template cannot read).
std::optional<EmittedKernel> generalFallback(const ir::Kernel& typed, const EmitOptions& options) {
  ir::Kernel general = typed;
  general.generalDots = true;
  const config::ConfigSpec spec = config::ConfigSpec::fromKernel(general);
  const config::Config config = spec.defaultConfig();
  std::ostringstream quiet;
  DiagnosticEngine diags(quiet);
  ir::PipelineOptions silent;
  silent.verifyEach = options.pipeline.verifyEach;
  std::optional<ir::Kernel> decided = decide(general, config, silent, diags);
  if (!decided)
    return std::nullopt;
  EmitOptions eo = options;
  eo.kernelSuffix = "_general_kernel";
  eo.configJson += " (operands the template cannot read: the general lowering, " +
                   config::formatConfig(config, spec) + ")";
  std::optional<EmittedKernel> out = codegen::emitKernel(*decided, eo, diags);
  if (!out || diags.hasErrors())
    return std::nullopt;
  return out;
}

} // namespace

std::optional<EmittedKernel> compileCuda(const ir::Kernel& typed, const config::Config& config,
                                         const EmitOptions& options, DiagnosticEngine& diags) {
  std::optional<ir::Kernel> decided = decide(typed, config, options.pipeline, diags);
  if (!decided)
    return std::nullopt;
  const ir::Kernel& kernel = *decided;
  std::optional<EmittedKernel> out = codegen::emitKernel(kernel, options, diags);
  if (out && out->matmul && !ir::isBatchedMatmulLoop(typed) && !ir::groupedMatmulRowLoop(typed))
    if (auto general = generalFallback(typed, options))
      out->general = std::make_shared<const EmittedKernel>(std::move(*general));
  if (!out || ir::dotTemplate(kernel) != ir::DotTemplate::None)
    return out;
  if (!checkUnrolledSize(kernel, config, out->numThreads, "", diags))
    return std::nullopt;
  // Rows too long for registers: the same kernel with its persistent reductions
  // looped (chunks of 32 elements per thread), for the launcher to switch to.
  // Chunks are halved (down to one element per thread) while that variant would
  // unroll past kMaxUnrolledOps (many rows per program on few threads): it must
  // compile in reasonable time at the user's first long row.
  std::vector<int> persistentAxes;
  for (const TemplateArg& t : out->templateArgs)
    if (t.kind == TemplateArg::Kind::ReductionDim)
      persistentAxes.push_back(t.index);
  const bool persistent = !persistentAxes.empty();
  config::Config looped =
      config::longRowsConfig(kernel, config, out->numThreads, persistentAxes);
  const int64_t chunk = persistent ? *looped.reductionLoops[persistentAxes.front()] : 0;
  if (persistent && !checkUnrolledSize(kernel, looped, out->numThreads,
                                       "for rows over " + std::to_string(kLongRowElems) +
                                           " elements per thread (the looped variant)",
                                       diags))
    return std::nullopt;
  if (persistent) {
    EmitOptions longOptions = options;
    longOptions.kernelSuffix = "_long_rows_kernel";
    longOptions.configJson += " (reduction_loops " + std::to_string(chunk) +
                              " for rows over " + std::to_string(kLongRowElems) +
                              " elements per thread)";
    // A kernel the looped form cannot express keeps only its persistent one.
    std::ostringstream quiet;
    DiagnosticEngine longDiags(quiet);
    ir::PipelineOptions silent;
    silent.verifyEach = options.pipeline.verifyEach;
    std::optional<ir::Kernel> loopedKernel = decide(typed, looped, silent, longDiags);
    std::optional<EmittedKernel> lr;
    if (loopedKernel)
      lr = codegen::emitKernel(*loopedKernel, longOptions, longDiags);
    if (lr && !longDiags.hasErrors())
      out->longRows = std::make_shared<const EmittedKernel>(std::move(*lr));
  }
  return out;
}

} // namespace helion::driver
