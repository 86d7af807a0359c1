//===- helion/Tune/Flops.h - Tensor-core work of a kernel call -*- C++ -*-===//
//
// A kernel with hl::dot is reported in TFLOP/s, as matmuls are: the work is the
// multiply-adds of its dots, counted from the IR and the sizes it runs at.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"
#include "helion/IR/IR.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helion::tune {

/// The floating-point operations of the hl::dot calls of one kernel call (2 per
/// multiply-add): for each dot, 2 x the product of the extents of the distinct dims it
/// iterates over, which are the dims of its operands and result and the loops of
/// one-element tiles around it (hl::grid, a batch tile of size 1); a loop over other
/// tiles that are none of its dims repeats the same products and counts once (a
/// tile dim counts its loop's extent, a whole dim its axis's). matmul x[m, k] @ y[k, n]:
/// tiles tm, tn, tk: 2mnk; attention over [b, s, d] with two dots: 2 x 2bssd. A tile's
/// extent is its block size's hint (sizeHintsFor()), else the size of a tensor dim it
/// indexes (`x[tm, tk]`: tm spans x.size(0)) from `tensorSizes` (by parameter name):
/// matmul's m, n, k are host locals the hints cannot evaluate. nullopt when the kernel
/// has no dot, an extent is unknown, or the kernel is untyped. Masked-off parts of
/// tiles (a causal mask) still count.
std::optional<double> dotFlops(const ir::Kernel& kernel, const config::SizeHints& hints,
                               const std::map<std::string, std::vector<int64_t>>& tensorSizes = {});

} // namespace helion::tune
