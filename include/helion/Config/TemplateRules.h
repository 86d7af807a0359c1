//===- helion/Config/TemplateRules.h - One rules object per template family -*- C++ -*-===//
//
// A kernel the tensor-core matmul or the flash-attention template prints
// (ir::dotTemplate) takes only the configs its device-library kernels instantiate. The
// family's rules object is the one place that says which:
//
//   the spec      narrow() (block-size ranges), numWarpsChoices(), describe() (the
//                 restriction lines of `helionc spec`)
//   the default   defaults() (the fastest measured config: docs/gemm.md, docs/attention.md)
//   candidates    draw() (attention: a random config it instantiates)
//   validation    check(): every broken rule as a ConfigError with its JSON path;
//                 config::validate reports them for a config file, the template-plan
//                 pass at the grid loop for any other config
//   the mapping   check() fills ir::GemmParams / ir::AttentionParams, which template-plan
//                 stores in the IR (Kernel::gemm, Kernel::flash) for the emitter
//
// So the spec, the validator, the tuner and the emitter read one set of rules.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigSpec.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/TemplateParams.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace helion::config {

/// One tile of a template under a config: its name, its entry of block_sizes (-1: the
/// source fixes it) and its size. `known` is false when the config has no such entry
/// (validation reports the length; the tile's own rules are skipped).
struct RuleTile {
  std::string name;
  int configIndex = -1;
  int64_t size = 1;
  bool known = true;

  /// "block_sizes[i]: rule" (or "block_sizes: rule" for a size fixed by the source).
  ConfigError error(std::string rule) const { return {"block_sizes", configIndex, -1, rule}; }
  /// "'tm'" or "'tm' (fixed by the source)".
  std::string quoted() const;
};

/// The restriction lines of a family in `helionc spec`: a title, then one line per key
/// (the key padded to 24 columns).
using RuleLines = std::vector<std::string>;

/// hd::Gemm (sm90: TMA + wgmma) and hd::GemmSm80 (cp.async + mma.sync), for a matmul,
/// a bmm and the grouped GEMM (lib/Transforms/MatmulRecognizer.h).
class MatmulRules {
public:
  /// The rules of `kernel` when the matmul template prints it and its loops name the
  /// template's tiles (ir::templateTiles), else nullopt.
  static std::optional<MatmulRules> of(const ir::Kernel& kernel);

  /// tm, tn in [64, 256] (tn from 16 when B is read as [N, K]), tk 64, the batch tile 1,
  /// each within the source's own range where that allows any of them.
  void narrow(std::vector<BlockSizeSpec>& blockSizes) const;
  /// 8 or 12 warps: 1 or 2 consumer warpgroups; a product scaled per K block also 16
  /// (3 consumers of 64 rows each: tm 192).
  std::vector<int> numWarpsChoices() const {
    return t_.kScaled ? std::vector<int>{8, 12, 16} : std::vector<int>{8, 12};
  }
  /// tm's choices of a product scaled per K block (192 is off the powers of two).
  static std::vector<int64_t> scaledRowChoices() { return {64, 128, 192, 256}; }
  RuleLines describe(bool grouped) const;
  /// block_sizes of tm, tn, tk 128, 256, 64 (clamped to the spec), 12 warps, 4 stages,
  /// persistent_interleaved, l2_groupings 8, every site tensor_descriptor (a product
  /// scaled per K block: tn and tk 128).
  void defaults(const ConfigSpec& spec, Config& c) const;
  /// The config index of tm, or -1 when the source fixes it.
  int rowsConfigIndex(const Config& c) const;
  /// num_warps = warps and, for a product scaled per K block on sm90 with a tunable tm,
  /// tm = 64 x consumer warpgroups when that changes the consumers' rows (16 warps: 192;
  /// from 192 to 12 warps: 128; 8 warps: 64 or 128 as it was).
  void setConsumers(Config& c, int warps) const;
  /// Evens out the keys without effect on the kernels (canonicalize(), Candidates.h):
  /// indexing all tensor_descriptor or all pointer; pid_type xyz is flat and
  /// persistent_blocked persistent_interleaved; without TMA, pid_type and num_warps are
  /// the default's `d` (the sm80 kernel runs 8 warps, one CTA per tile).
  static void canonicalize(Config& c, const Config& d);
  /// Every rule `c` breaks (empty: `out`, when given, holds the template parameters).
  /// `withRanges`: also the block-size ranges narrow() gives the spec and the lower
  /// bound of num_stages, which config::validate checks on its own before.
  std::vector<ConfigError> check(const Config& c, ir::GemmParams* out,
                                 bool withRanges = true) const;

  const ir::TemplateTiles& tiles() const { return t_; }

private:
  MatmulRules(const ir::Kernel& k, ir::TemplateTiles t) : k_(&k), t_(std::move(t)) {}
  const ir::Kernel* k_;
  ir::TemplateTiles t_;
};

/// hd::AttentionSm80 (cp.async + mma.sync) and hd::AttentionSm90 (TMA + wgmma) for a
/// kernel with the online-softmax key loop (lib/Transforms/AttentionRecognizer.h).
class AttentionRules {
public:
  static std::optional<AttentionRules> of(const ir::Kernel& kernel);

  static std::vector<int> numWarpsChoices() { return {4, 8, 12, 16}; }
  static RuleLines describe();
  /// AttentionSm90<T, d, 128, 2, 2>, persistent, with AttentionSm80<T, d, 64, 4, 2> off
  /// Hopper: block_sizes of tm, tn 128, 128, 12 warps, 2 stages, every site
  /// tensor_descriptor.
  void defaults(const ConfigSpec& spec, Config& c) const;
  /// Overwrites the template keys of a random draw `c` with a random config one of the
  /// two kernels instantiates (Candidates.cpp).
  void draw(std::mt19937_64& rng, Config& c) const;
  /// The query rows (tm) either kernel takes: sm80 16 or 32 per warp of 4 or 8, sm90 64
  /// per consumer warpgroup; 192 (3 consumers) is the one off the powers of two.
  static std::vector<int64_t> rowChoices() { return {64, 128, 192, 256}; }
  /// The config index of tm's block size, or -1 when the source fixes it.
  int rowsConfigIndex(const Config& c) const;
  /// `c` with `warps` warps and, on sm90, the rows that many consumer warpgroups take
  /// (64 each) and at most 2 stages with 3 consumers: one tuner step (Candidates.cpp),
  /// since neither num_warps nor tm alone can move from 2 consumers to 3.
  void setConsumers(Config& c, int warps) const;
  /// indexing all tensor_descriptor or all pointer; pid_type xyz is flat; without TMA,
  /// pid_type is the default's `d` (the sm80 kernel runs one CTA per tile).
  static void canonicalize(Config& c, const Config& d);
  std::vector<ConfigError> check(const Config& c, ir::AttentionParams* out) const;

  const ir::TemplateTiles& tiles() const { return t_; }
  /// The head dim the shared-memory rule assumes: the constant one, else 128.
  int64_t headDim() const;

private:
  AttentionRules(const ir::Kernel& k, ir::TemplateTiles t) : k_(&k), t_(std::move(t)) {}
  const ir::Kernel* k_;
  ir::TemplateTiles t_;
};

/// Tile `tile` of `kernel` under `c` (RuleTile's fields; the decl's name).
RuleTile ruleTile(const ir::Kernel& kernel, const Config& c, int tile);

/// Sets the block_sizes entry of tile `tile` of `kernel` in `c` to `v` clamped to the
/// spec's range (nothing when the source fixes it): the families' defaults.
void setTileDefault(const ir::Kernel& kernel, const ConfigSpec& spec, Config& c, int tile,
                    int64_t v);

/// Whether every indexing entry is tensor_descriptor (the templates' sm90 kernels);
/// with `canonical`, the entries of a config that is not are made all pointer.
bool allTensorDescriptors(const Config& c);
bool allTensorDescriptors(Config& c, bool canonical);

} // namespace helion::config
