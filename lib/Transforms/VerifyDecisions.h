//===- VerifyDecisions.h - Invariants of the config passes' decisions -*- C++ -*-===//
//
// The verifier's checks of what the config passes store beside the statements
// (Verify.cpp checks the tree): chosen block sizes, reduction chunks, grid mappings,
// the thread layout, the launch and a template's parameters. Private to
// lib/Transforms.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <functional>
#include <string>

namespace helion::ir {

using VerifyFail = std::function<void(const SourceLoc&, const std::string&)>;

/// The kernel-level decisions of `k`, each violation through `fail`.
void verifyKernelDecisions(const Kernel& k, const VerifyFail& fail);

/// The grid mapping `g` of top-level loop `loop`.
void verifyGridMapping(const Kernel& k, const Stmt& loop, const GridMapping& g,
                       const VerifyFail& fail);

} // namespace helion::ir
