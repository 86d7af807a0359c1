//===- ChainRecognizer.h - The chained-dot recognizer -----------*- C++ -*-===//
//
// recognizeChain (RecognizeChain.cpp): the chain template's loop (ChainMatch,
// helion/IR/TemplateMatch.h) in a kernel the generic emitter prints, or nullopt,
// silently: such a kernel runs as the generic kernel. Private to lib/Transforms.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/TemplateMatch.h"
#include "helion/Transforms/Passes.h"

#include <optional>
#include <set>

namespace helion::ir {

} // namespace helion::ir
