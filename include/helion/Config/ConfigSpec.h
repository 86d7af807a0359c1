//===- helion/Config/ConfigSpec.h - Which configs a kernel has --*- C++ -*-===//
//
// A kernel's config spec (Helion's ConfigSpec): which entries each key has, what
// each entry belongs to, the legal values, and a default config derived from size
// hints. Built from the IR alone; sizes are hints (the extents a kernel is expected
// to run at), never promises: a config stays correct at any size.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/Config.h"
#include "helion/IR/IR.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace helion::config {

/// Expected extents, for legal ranges and defaults.
struct SizeHints {
  std::map<int, int64_t> blockSizes; ///< BlockSizeDecl id -> extent it tiles
  std::map<int, int64_t> axes;       ///< Axis id -> extent of the reduction axis
};

/// Hints for the sizes a kernel will run at: each block size's `sizeHint` and each axis's
/// extent evaluated with the given tensor sizes and scalar values (by parameter name).
/// Hints whose expression needs anything else (or divides by zero) are left out.
/// Example: softmax with x = [4096, 8192] and m = 4096 -> blockSizes {0: 4096}, axes {0: 8192}.
SizeHints sizeHintsFor(const ir::Kernel& kernel,
                       const std::map<std::string, std::vector<int64_t>>& tensorSizes,
                       const std::map<std::string, int64_t>& scalars = {});

/// One tunable block size (`block_sizes[i]`): legal values are the powers of two in
/// [min, max]. `max` is already capped at next_pow2(hint) when a hint is known.
struct BlockSizeSpec {
  int declId = -1;
  std::string name;
  int64_t min = 1, max = 1;
  std::optional<int64_t> hint;
  bool inGridLoop = false; ///< tiles a grid loop (else only inner loops)
  bool jagged = false;     ///< its loop's bounds are device values (`hl::tile(start, end)`)
  /// Why [min, max] is narrower than the source's ("a tensor-core matmul"), or "".
  std::string narrowedFor;
  /// The tuner's values when they are not the powers of two in [min, max] (flash
  /// attention's query rows: 192 is one; ConfigSpec::blockSizeChoices), else empty.
  std::vector<int64_t> choices;
};

/// A tile loop with config entries.
struct LoopSpec {
  int loop = -1;          ///< index into tileLoops(kernel)
  bool isGrid = false;
  std::vector<int> tiles; ///< tile variable ids
  std::string name;       ///< its tile variables: "tm, tn"
  std::vector<int> blockSizeDecls; ///< the block-size declarations of its tiles (ir ids)
};

/// One reduction axis (`reduction_loops[i]`): null, or a power of two in [1, maxChunk]
/// (maxChunk is 0 for an axis of extent 1: it is never looped).
struct ReductionLoopSpec {
  int axisId = -1;
  std::string name;       ///< "a0 (x.size(1))"
  std::optional<int64_t> hint;
  int64_t maxChunk = 1 << 20; ///< next_pow2(hint) / 2 when a hint is known
};

/// A validation error: `path: rule`. `index`/`sub` are -1 when absent.
struct ConfigError {
  std::string key;
  int index = -1, sub = -1;
  std::string rule;
  std::string path() const; ///< "block_sizes[1]", "loop_orders[0][2]", "num_warps", ""
};

/// A spec lists only the entries that change the kernel's generated code: every
/// key entry the tuner may change has an effect for some values of the other keys
/// (the configs.random test checks it). Which ones need which others is in
/// canonicalize() (Candidates.h); tensor-core kernels (hl::dot) run the device
/// library's templates, which take fewer keys.
struct ConfigSpec {
  std::string kernelName;
  std::vector<BlockSizeSpec> blockSizes;
  /// loop_orders: grid loops of >= 2 tiles (the order in which program ids walk the
  /// tiles); none in tensor-core kernels.
  std::vector<LoopSpec> multiTileLoops;
  /// l2_groupings: grid loops of exactly 2 tiles (programs grouped along the first);
  /// none in flash attention.
  std::vector<LoopSpec> l2Loops;
  std::vector<LoopSpec> innerLoops;     ///< every inner (non-grid) tile loop
  /// range_unroll_factors: the inner loops the CUDA emitter prints as loops (none in
  /// tensor-core kernels, whose K loop lives in the device library's templates).
  std::vector<LoopSpec> unrollLoops;
  /// reduction_loops: one per reduction axis; none in flash attention (its key loop
  /// is the template's).
  std::vector<ReductionLoopSpec> reductionLoops;
  int numSites = 0;     ///< loads + stores: entries of a per-site `indexing`
  /// Entries of `load_eviction_policies`: one per load site; none in tensor-core
  /// kernels (their loads are the templates' TMA / cp.async copies).
  int numLoadSites = 0;
  /// Load sites (indices into `indexing`) that a persistent program can stage through
  /// shared memory (indexing block_ptr, num_stages >= 2: PersistentLoads.cpp): a `let` of a
  /// load directly in the only grid loop, by its tiles and whole dims (a whole dim last
  /// where the kernel reduces), of a tensor the kernel never writes. Elsewhere indexing
  /// has no effect outside tensor-core kernels.
  std::vector<int> stageableSites;
  /// Load sites (indices into `load_eviction_policies`) that can take an eviction
  /// hint (hintableLoadSites): a `let` of a load whose last subscript is a tile or a
  /// whole dim, which the emitter reads as vectors when that dim is the program's
  /// innermost and element by element otherwise, with the hint either way (a gather, a
  /// masked load or a scalar subscript never takes one).
  std::vector<int> hintableLoads;
  /// Hintable loads streamed by a jagged loop (streamedLoadSites): subscripted by a
  /// tile whose bounds the kernel loads. The default config gives them evict_first.
  std::vector<int> streamedLoads;
  std::vector<PidType> pidTypes; ///< legal pid_type values
  bool hasDot = false;  ///< the kernel's dots run a template (matmul or attention)
  bool attention = false; ///< a batched (3-D) hl::dot: flash attention (ir::dotTemplate)
  /// Atomic adds that collide (ir::hasContendedAtomics, a histogram): persistent
  /// programs add into shared-memory copies (privatize-atomics), so the default is
  /// persistent.
  bool contendedAtomics = false;
  /// A grouped GEMM (ir::groupedMatmulRowLoop): its row and column tiles tm, tn have
  /// inGridLoop set (the template's output tiles); always persistent, GROUP_M 8.
  bool groupedMatmul = false;
  int64_t fixedGridElements = 1; ///< product of the fixed block sizes of grid tiles
  /// The kernel this spec describes (the size limit of candidates, UnrolledSize.h);
  /// null in a spec built by hand.
  std::shared_ptr<const ir::Kernel> kernel;

  /// A 2-D tensor-core matmul (hl::dot with a K loop; ir::dotTemplate).
  /// Dots of no template's shape (ir::dotHasMatmulShape): the generic emitter's
  /// general lowering (EmitDot.cpp). Such a kernel has hasDot false (the generic
  /// kernel's keys and rules) and a dot's defaults (grid tiles 64, inner tiles 32,
  /// 4 warps, reductions not looped).
  bool generalDot = false;
  bool matmul() const { return hasDot && !attention && !generalDot && !innerLoops.empty(); }

  // Scalar keys that change the generated code of this kernel. The others are not
  // in the spec: a config may name them (with a legal value), and they are ignored.
  bool hasNumStages() const { return hasDot || generalDot || !stageableSites.empty(); }
  bool hasNumSmMultiplier() const { return !hasDot && pidTypes.size() > 1; }
  bool hasMaxnreg() const { return !hasDot; }
  bool hasVectorBytes() const { return !hasDot; }

  /// The spec of `kernel`; hints missing from `hints` come from BlockSizeDecl::sizeHint
  /// when that is a constant.
  static ConfigSpec fromKernel(const ir::Kernel& kernel, const SizeHints& hints = {});

  /// A valid config chosen from the hints (see DefaultConfig.cpp for the heuristics;
  /// a template's keys come from its rules, TemplateRules.h).
  Config defaultConfig() const;

  // Legal values of the enumerable entries, in increasing order.
  std::vector<int64_t> blockSizeChoices(int i) const;
  std::vector<std::optional<int64_t>> reductionChoices(int i) const;
  /// num_warps: powers of two in [1, 32]; a template's from its rules (a matmul 8 or
  /// 12, flash attention 4, 8 (sm80), 12, 16 (sm90)).
  std::vector<int> numWarpsChoices() const;
  /// num_stages: 1..8; a matmul 2..8, flash attention 2..4.
  std::vector<int> numStagesChoices() const;
};

/// Every rule a config breaks under `spec` (lengths first, then each entry), or none.
std::vector<ConfigError> validate(const Config& config, const ConfigSpec& spec);

/// Human-readable spec: each key, what it means, its entries and legal values, its
/// default; then the default config as JSON. `helionc spec` prints this.
std::string formatSpec(const ConfigSpec& spec);

// Legal ranges shared by validate(), candidates and formatSpec().
inline constexpr int kMaxNumWarps = 32;
inline constexpr int kMaxNumStages = 8;
inline constexpr int kMaxNumSmMultiplier = 4;
inline constexpr int kMaxL2Grouping = 64;
inline constexpr int kMaxRangeUnroll = 4;
inline constexpr int kMinMaxnreg = 32, kMaxMaxnreg = 255;

bool isPowerOfTwo(int64_t v);

/// The load sites of `k` that take `load_eviction_policies` (ConfigSpec::hintableLoads);
/// apply-config hints the loads there and nowhere else.
std::vector<int> hintableLoadSites(const ir::Kernel& k);
/// The load sites among `hintable` (hintableLoadSites(k), indices into
/// `load_eviction_policies`) subscripted by a tile of a jagged loop (`hl::tile(start,
/// end)` with loaded bounds): data a program streams through once
/// (ConfigSpec::streamedLoads).
std::vector<int> streamedLoadSites(const ir::Kernel& k, const std::vector<int>& hintable);
int64_t nextPowerOfTwo(int64_t v); ///< smallest power of two >= v (1 for v <= 1)

} // namespace helion::config
