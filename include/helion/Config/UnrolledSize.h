//===- helion/Config/UnrolledSize.h - Configs too large to compile -*- C++ -*-===//
//
// The CUDA emitter keeps every value in per-thread register arrays and unrolls the
// loops over them, so a config with huge tiles on few threads is legal but unrolls
// without bound, and NVRTC's time grows faster than the code. This estimate is the
// one rule both sides apply: the emitter refuses such a config with a diagnostic
// (lib/CodeGen/ResourceCheck.cpp), and the tuner's candidates never include one
// (isCandidate() in Candidates.h). It reads the IR and the config only.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/Config.h"
#include "helion/IR/IR.h"

#include <vector>

namespace helion::config {

/// Most unrolled operations per thread in one tile loop's body.
inline constexpr int64_t kMaxUnrolledOps = 4096;

/// The costliest tile loop body under a config: its loop, its estimated unrolled
/// operations per thread, and the elements per thread of its widest operation.
struct UnrolledSize {
  const ir::Stmt* loop = nullptr;
  int64_t ops = 0;
  int64_t elems = 0;
};

/// Per tile loop (and per grid loop for the statements directly in it): the sum over
/// the operations (IR expressions other than leaves) of its statements of
/// max(1, elements of the result / numThreads), where a tile dim counts its block
/// size, a looped reduction dim its chunk and a persistent one 1 (long rows run
/// the looped variant, estimated on its own: longRowsConfig()).
UnrolledSize estimateUnrolledSize(const ir::Kernel& kernel, const Config& config,
                                  int numThreads);

/// Row elements per thread above which the launcher runs a persistent reduction looped
/// (the long-rows variant below).
inline constexpr int kLongRowElems = 64;
/// The long-rows variant's chunk before any halving: 32 elements per thread.
inline int64_t longRowsChunk(int numThreads) { return int64_t{32} * numThreads; }

/// The config of the long-rows variant of a kernel whose reduction axes
/// `persistentAxes` are persistent under `config`: those axes looped in chunks of
/// 32 x numThreads, halved (down to numThreads) while it unrolls past kMaxUnrolledOps.
Config longRowsConfig(const ir::Kernel& kernel, const Config& config, int numThreads,
                      const std::vector<int>& persistentAxes);

/// Most elements of one value per thread in a tuning candidate. More cannot stay in
/// the 255 registers of a thread: the kernel spills, and NVRTC takes long on it (add
/// on 64 threads, f16: tiles of 16384 elements, 256 per thread, 3.3 s; 65536, 1024
/// per thread, 61 s), so the tuner never proposes one. The emitter compiles it.
inline constexpr int64_t kMaxCandidateElems = 256;

/// Whether `config` is small enough to be a tuning candidate: the generic CUDA
/// emitter's size checks accept it (its kernel and, with persistent reductions, its
/// long-rows variant: lib/CodeGen/CudaEmitter.cpp) and no value holds more than
/// kMaxCandidateElems elements per thread, and the operands of each general
/// hl::dot fit its staging area in every dtype (DotStaging.h). Only for kernels
/// without hl::dot or with dots of the general lowering (the others run the device
/// library's templates).
bool fitsCandidateLimits(const ir::Kernel& kernel, const Config& config);

} // namespace helion::config
