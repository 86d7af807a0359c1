//===- RecognizeTemplates.cpp - A template's loop, recognized --------------===//
//
// For a kernel ir::dotTemplate sends to a device-library template, checks the loop
// against the template's pattern in every detail (MatmulRecognizer.h,
// AttentionRecognizer.h), reporting what does not fit at its location, and records
// what plays which part as a typed node (Kernel::matmul, Kernel::attention;
// helion/IR/TemplateMatch.h). In a generic kernel it looks for two chained dots
// (Kernel::chain, RecognizeChain.cpp), silently: the chain template is a fast path
// beside the generic kernel, not its replacement. It runs after the other config passes, so the nodes it
// points at are the ones the emitter prints (the verifier checks that they are).
//
//   for %tm, %tn in tile(0, %m), tile(0, %n) ... { let %acc.0 = ...; for %tk ...; store ... }
//   matmul: a %x[tm, tk], b %y[tk, tn], acc %acc.0, k loop tk, epilogue 1, single store %out
//===----------------------------------------------------------------------===//
#include "AttentionRecognizer.h"
#include "helion/IR/TemplateMatch.h"
#include "MatmulRecognizer.h"

#include "helion/IR/DotShape.h"
#include "helion/Transforms/Passes.h"

#include <sstream>

namespace helion::ir {

Kernel recognizeTemplates(const Kernel& kernel, PassContext& ctx) {
  Kernel k = kernel;
  k.matmul.reset();
  k.attention.reset();
  k.chain.reset();
  switch (dotTemplate(kernel)) {
  case DotTemplate::Matmul:
    if (std::optional<MatmulMatch> m = recognizeMatmul(kernel, ctx.diags))
      k.matmul = std::make_shared<const MatmulMatch>(std::move(*m));
    break;
  case DotTemplate::Attention:
    if (std::optional<AttentionMatch> m = recognizeAttention(kernel, ctx.diags))
      k.attention = std::make_shared<const AttentionMatch>(std::move(*m));
    break;
  case DotTemplate::None: // a generic kernel; two chained dots may also run as the chain template
    if (std::optional<ChainMatch> m = recognizeChain(kernel))
      k.chain = std::make_shared<const ChainMatch>(std::move(*m));
    break;
  }
  return k;
}

bool matmulTemplateTakes(const Kernel& kernel, Diagnostic* why) {
  std::ostringstream unused;
  DiagnosticEngine quiet(unused);
  std::vector<Diagnostic> said;
  quiet.capture(&said);
  if (recognizeMatmul(kernel, quiet))
    return true;
  if (why && !said.empty())
    *why = said.front();
  return false;
}

} // namespace helion::ir
