//===- helion/CodeGen/CudaEmitter.h - Typed IR -> CUDA C++ -------*- C++ -*-===//
//
// Emits one CUDA kernel per helionc kernel: a template over the tensor
// parameters' dtypes (`T_x`), the padded extent of each persistent reduction
// axis (`RDIM0`) and the vector width (`VEC`), so one source serves every dtype
// signature and size; the host side picks the instantiation at run time and
// NVRTC compiles it once (cached). Block sizes, warps and the grid mapping are
// baked in from the config.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/Config.h"
#include "helion/Config/UnrolledSize.h"
#include "helion/IR/IR.h"
#include "helion/Transforms/Passes.h"
#include "helion/Support/Diagnostics.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace helion::codegen {

/// One argument of the emitted __global__ function, in order.
struct KernelArg {
  enum class Kind { Pointer, Size, Stride, Numel, Scalar };
  Kind kind;
  int param;    ///< kernel IR parameter
  int dim = -1; ///< Size, Stride
};

/// A template parameter of the emitted kernel, in order.
struct TemplateArg {
  /// EpilogueForm: a matmul's `int TMA_STORE` (1: tma_store, 0: pairs), chosen at launch.
  /// ExactAxes: `int EXACT`, bit i set when layout axis EmittedKernel::exactAxes[i]
  /// needs no bounds checks at this launch (every tile / chunk of it is full).
  enum class Kind { DType, ReductionDim, VectorWidth, Specialized, EpilogueForm, ExactAxes };
  Kind kind;
  int index; ///< DType/Specialized: param; ReductionDim: axis
};

/// The grid of one top-level tile loop: host expressions of each tile's extent.
struct GridLoop {
  std::vector<int> tiles;         ///< in pid order (the grid mapping's order)
  std::vector<int64_t> blockSizes;
};

using ir::AttentionParams; // helion/IR/TemplateParams.h: decided by template-plan
using ir::GemmParams;

/// What the host launcher of a tensor-core matmul needs (EmitMatmul.cpp):
/// the emitted source holds an sm90 kernel (`kernelName`, TMA + wgmma, when `sm90`)
/// and an sm80 one (`sm80KernelName`, cp.async + mma.sync), both templates over the
/// tensor dtypes and TMA_STORE; `args` are the epilogue's arguments after the fixed
/// ones (sm90: map_a, map_b, map_c, M, N, K, groupM; sm80: a, b, M, N, K, lda, ldb, groupM).
struct MatmulLaunch {
  int a = -1, b = -1;       ///< tensor params: A [M, K], B [K, N] (or [N, K] when bTransposed)
  bool bTransposed = false;
  bool aPrologue = false;   ///< A computed from its load (MatmulMatch::aPrologue): no 8-bit A
  /// The prologue's staged tensor (MatmulMatch::aStaged), or -1. The sm90 kernel takes
  /// its tensor map `map_y` after map_c and stages it when its dtype is A's (StagedA);
  /// a y of A's dtype that TMA cannot read (layout, alignment) runs the sm80 kernel.
  int aStaged = -1;
  ir::ExprRef m, n, k;      ///< extents (ends of the tiles tm, tn, tk)
  /// Batched (bmm): the batch extent (end of tile tb); A [B, M, K], B [B, K, N]
  /// (or [B, N, K]), 3-D tensor maps, `int batches` after groupM (sm90) and
  /// `int64 strideA, strideB` after ldb (sm80, batch = blockIdx.y). Null: 2-D.
  ir::ExprRef batch;
  /// Grouped GEMM: the group count (end of tile g; null: not grouped) and the tensor
  /// of G + 1 row offsets. A [M, K] with M = A's rows, B [G, K, N] (or [G, N, K]) as
  /// bmm's 3-D maps; the kernels take `const T_offsets* offsets, int groups` after
  /// groupM (sm80: `int64 strideB` before groupM) and run persistent (grid #SMs).
  ir::ExprRef groups;
  int offsets = -1;
  GemmParams gemm;         ///< the template parameters (MatmulPlan's)
  std::string sm80KernelName;
  /// GemmParams::groupedRows: the row-fitting sm_90a kernel (EmitGroupedMatmul.cpp),
  /// with the grouped kernels' template parameters; empty when there is none.
  std::string rowsKernelName;
  int tmaStoreParam = -1;   ///< the output tma_store can write, or -1 (pairs only)
};

/// What the host launcher of the sm_90a chain template needs (EmitChain.cpp): the
/// chain kernel is `kernelName<dtypes..., specialized..., DK>` with fixed arguments
/// (the tensor maps of a, b1, b2, then int M, H, N) followed by `args` (the
/// functors' fields). DK, the first dot's K, comes from the tensors at launch.
struct ChainLaunch {
  int a = -1, b1 = -1, b2 = -1;   ///< tensor params: a [M, K], b1 [K, H] (or [H, K]), b2 [H, N]
  bool b1KMajor = false;          ///< b1 is [H, K] (read transposed)
  ir::ExprRef m, n, h, k;         ///< extents (ChainMatch's rows, cols, hidden, depth)
  ir::ExprRef batch;              ///< batched: the batch count (a, b1, b2 are 3-D), else null
  /// The dtype of the second dot's A (the activation's cast): a tensor param's
  /// dtype (castParam >= 0) or a fixed one.
  int castParam = -1;
  ir::ScalarType castType = ir::ScalarType::BF16;
  ir::ChainParams params;
};

/// A layout axis whose bounds checks the launcher can prove away (TemplateArg::ExactAxes).
struct ExactAxis {
  bool isTile = false; ///< a tile (id: TileVar) or a reduction axis (id: Axis)
  int id = -1;
  int64_t chunk = 0;   ///< looped reduction: its chunk; tile: its block size; 0: RDIM
};

/// What the host launcher of flash attention needs (EmitAttention.cpp):
/// the sm80 kernel is `sm80KernelName<dtypes..., d>` with fixed arguments (q, k, v, M, N,
/// and the batch and row strides of q, k, v) followed by `args` (the functors' fields);
/// when `sm90`, `kernelName` is the TMA + wgmma kernel (fixed arguments: the tensor maps
/// of q, k, v, M, N) and the sm80 one is the fallback off compute capability 9.x.
struct AttentionLaunch {
  int q = -1, k = -1, v = -1;     ///< tensor params, [b, seq, d]
  /// The epilogue's one [b, seq, d] store (the sm90 kernel may store it by TMA), or -1.
  int out = -1;
  ir::ExprRef b, m, n, headDim;   ///< extents (ends of tb, tm, tn; acc's last dim)
  AttentionParams flash;          ///< the template parameters (AttentionPlan's)
  std::string sm80KernelName;
};

struct EmittedKernel {
  std::string source;     ///< CUDA C++, includes "helion/device.cuh"
  std::string kernelName; ///< the __global__ template's name
  std::vector<KernelArg> args;
  std::vector<TemplateArg> templateArgs;
  std::vector<ExactAxis> exactAxes; ///< bit i of EXACT: exactAxes[i]
  std::vector<GridLoop> loops;
  int numThreads = 128;
  int maxVectorBytes = 16;
  /// How the host launches the grid: the grid mapping's pid (xyz only for the single
  /// grid loop of at most three tiles it decided so; tensor-core kernels: flat).
  config::PidType pidType = config::PidType::Flat;
  int numSmMultiplier = 1;
  std::vector<int> paramRanks; ///< rank used per tensor param (-1: flat only / scalar)
  std::optional<MatmulLaunch> matmul; ///< set for a tensor-core matmul
  std::optional<AttentionLaunch> attention; ///< set for flash attention
  /// For a kernel with persistent reductions (rows held in registers): the same
  /// kernel with every persistent reduction looped in chunks of 32 x numThreads,
  /// which the launcher runs instead when a thread would hold more than
  /// kLongRowElems row elements (a 131072-wide cross_entropy row under a config
  /// made for 4096). Its own NVRTC program; null when there is none.
  std::shared_ptr<const EmittedKernel> longRows;
  /// A generic kernel with two chained dots whose config fits the chain template
  /// (Kernel::chainParams): that template's kernel, its own NVRTC program, which the
  /// launcher runs instead on a compute capability 9.x device when the tensors fit
  /// it (bf16 / f16, K of 64, 128 or 256, TMA's alignment). Null when there is none.
  std::shared_ptr<const EmittedKernel> chain;
  /// A 2-D matmul template's kernel: the same loop on the general lowering (mma.sync
  /// from registers, bounds-checked loads; its own NVRTC program, under that lowering's
  /// default config), which its launcher runs for operands the template cannot read:
  /// rows not 16-byte aligned, or A and B of two dtypes.
  std::shared_ptr<const EmittedKernel> general;
  std::optional<ChainLaunch> chainLaunch; ///< set on that chain kernel
};

/// Row elements per thread above which a persistent reduction runs looped.
using config::kLongRowElems;

struct EmitOptions {
  std::string sourceFile; ///< for #line directives
  std::string version = "0.1.0";
  std::string configJson; ///< printed in the header comment
  std::string kernelSuffix = "_kernel"; ///< the __global__ name is the kernel's name + this
  /// --print-after and --verify-each for the config passes driver::compileCuda runs
  /// (the defaults: print nothing, verify as PipelineOptions::defaultVerifyEach says).
  ir::PipelineOptions pipeline;
};

/// Prints a decided kernel (after the config passes of ir::pipeline(); the driver,
/// helion/Driver/CompileCuda.h, runs them) as CUDA: a template's instantiation when
/// ir::dotTemplate says so, else the generic emitter's kernel. It reads no config.
/// Unsupported constructs are reported at their location and yield nullopt.
std::optional<EmittedKernel> emitKernel(const ir::Kernel& kernel, const EmitOptions& options,
                                        DiagnosticEngine& diags);

/// The C++ type name NVRTC sees for a dtype (`helion::dev::bf16`, `float`, ...).
const char* deviceTypeName(ir::ScalarType t);

} // namespace helion::codegen
