//===- helion/IR/IR.h - The tiled kernel IR ----------------------*- C++ -*-===//
//
// A kernel is a list of parameters (the function's tensors and scalars plus the
// host variables its device code captures) and one or more top-level tile loops
// (the launch grid). Loop bodies are statements over local variables; values are
// expression trees. Nodes are immutable and shared: passes build new trees.
//
//   kernel softmax(x: tensor, out: tensor) {
//     for %tm in tile(0, m) block_size=bs0 {          // grid loop
//       let %values: [tm, all(a0)] = load x[tm, all]
//       ...
//       store out[tm, all] = ...
//     }
//   }
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/TemplateParams.h"
#include "helion/IR/Types.h"

#include <memory>
#include <string>
#include <vector>

namespace helion::ir {

struct Expr;
struct Stmt;
using ExprRef = std::shared_ptr<const Expr>;
using StmtRef = std::shared_ptr<const Stmt>;

enum class UnaryOp : uint8_t {
  Neg, Not, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Abs,
  Erf, Floor, Ceil, Round, Sin, Cos, Log1p, Exp2, Log2, BitNot
};
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, Maximum, Minimum, Lt, Le, Gt, Ge, Eq, Ne, And, Or,
  Mod, BitAnd, BitOr, BitXor, Shl, Shr, Pow
};
enum class ReduceOp : uint8_t { Sum, Max, Min, Mean, ArgMax, ArgMin };

const char* unaryOpName(UnaryOp op);   // "exp", "neg", ...
const char* binaryOpName(BinaryOp op); // "add", "lt", ...
const char* reduceOpName(ReduceOp op); // "sum", "amax", "amin", "mean", "argmax", "argmin"

/// One subscript of a load or store, or of a view of a block.
struct Index {
  enum class Kind : uint8_t {
    Tile,    ///< `x[tm]`: the tile variable `tile`
    All,     ///< `x[hl::all]`: the whole dim
    NewAxis, ///< `hl::newaxis`: inserts a dim of size one (no tensor dim consumed)
    Scalar,  ///< an integer scalar expression (`x[i, tn]` with i from hl::grid)
    Gather,  ///< a block of indices (`weight[idx[tb], te]`): its dims take this place
    Flat,    ///< `x[tile]` with an N-D tile over `x.sizes()`, flattened (contiguous tensors)
  };
  Kind kind = Kind::All;
  int tile = -1;  ///< Tile, Flat
  ExprRef value;  ///< Scalar, Gather

  static Index ofTile(int t) { return {Kind::Tile, t, nullptr}; }
  static Index all() { return {Kind::All, -1, nullptr}; }
  static Index newAxis() { return {Kind::NewAxis, -1, nullptr}; }
  static Index scalar(ExprRef e) { return {Kind::Scalar, -1, std::move(e)}; }
  static Index gather(ExprRef e) { return {Kind::Gather, -1, std::move(e)}; }
  static Index flat(int t) { return {Kind::Flat, t, nullptr}; }
};

enum class ExprKind : uint8_t {
  Const,      ///< number (`value`, `isInt`)
  Param,      ///< a scalar kernel parameter (`param`)
  Var,        ///< a local variable (`var`)
  TileAttr,   ///< `tile.begin()/end()/block_size()/id()` (`tile`, `attr`)
  TileIndex,  ///< `tile.index()`: the block [tile] of indices it covers
  TensorSize, ///< `t.size(dim)` of tensor parameter `param`
  Load,       ///< `param[indices...]`; `gatherAll` for `hl::load(t, {blocks...}[, mask])`,
              ///< whose mask is operands[0] (see loadMask)
  Unary,      ///< `unary(operands[0])`
  Binary,     ///< `binary(operands[0], operands[1])`
  Where,      ///< `where(operands[0], operands[1], operands[2])`
  Cast,       ///< `operands[0].to(castTo)`; without castTo: to the dtype of tensor `param`
  Reduce,     ///< `reduce(operands[0], dim, keepdim)`
  Full,       ///< `hl::full(shape, operands[0], castTo)` / `hl::zeros`
  Arange,     ///< `hl::arange(shape[0])`
  View,       ///< `operands[0][indices...]` with All / NewAxis
  Transpose,  ///< `operands[0].transpose(dim, dim2)`
  Reshape,    ///< `operands[0].reshape(shape)`
  Dot,        ///< `hl::dot(a, b[, acc])`, `hl::addmm(acc, a, b)` as dot(a, b, acc)
  Scan,       ///< inclusive scan of operands[0] along `dim` combining with `binary`
              ///< (Add: `hl::cumsum`, Mul: `hl::cumprod`)
  Rand,       ///< `hl::rand(operands[0] = seed, operands[1] = offsets)`: uniform f32
};

enum class TileAttr : uint8_t { Begin, End, BlockSize, Id };

/// A tile's role in the mma layout of a kernel's general dots (the mma-layout pass,
/// helion/IR/MmaPlan.h): the rows or the columns of dot results.
enum class MmaRole : uint8_t { None, Row, Col };
const char* mmaRoleName(MmaRole role); // "none", "rows", "cols"

/// How a general hl::dot runs under the mma layout, decided by the mma-layout pass.
struct MmaDotInfo {
  enum class Operand : uint8_t {
    Owners,   ///< written into shared memory by the threads that hold it
    Copied,   ///< a tensor load copied into shared memory by all threads
    Registers ///< A only: the A fragment as it is, in registers
  };
  Operand a = Operand::Owners, b = Operand::Owners;
  /// The pipelined dot: tiles of its loop whose copies are in flight (num_stages,
  /// clamped per instantiation to what fits); 0 for every other dot.
  int stages = 0;
  /// Another dot whose operands are all copied loads (or A in registers), directly in
  /// a tile loop, the loads by that loop's and enclosing loops' tiles: its copies are
  /// issued (cp.async) at the top of each iteration of that loop, into a buffer of
  /// its own when that fits, and land while the code before the dot runs.
  bool early = false;
  bool operator==(const MmaDotInfo&) const = default;
};

/// The eviction hint of a load, from its entry of load_eviction_policies (apply-config):
/// evict_first for data read once, evict_last for data read again soon.
enum class Eviction : uint8_t { None, First, Last };
const char* evictionName(Eviction e); // "none", "evict_first", "evict_last"

/// A value. Fields beyond `kind`, `loc` and `type` are meaningful per kind (see ExprKind).
/// `type` is filled in by the infer-types pass; the frontend leaves it empty.
struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::optional<BlockType> type;
  std::vector<ExprRef> operands;

  double value = 0;      // Const
  bool isInt = false;    // Const
  int param = -1;        // Param, TensorSize, Load
  int var = -1;          // Var
  int tile = -1;         // TileAttr, TileIndex
  TileAttr attr = TileAttr::Begin;
  int dim = 0, dim2 = 0; // TensorSize, Reduce, Scan, Transpose
  bool keepdim = false;  // Reduce
  /// Reduce: the operand is zero past its tile's end, so its elements need no bounds
  /// check (the partial sums of accumulate-partials, reduced after their loop).
  bool zeroPadded = false;
  std::optional<MmaDotInfo> mma; // Dot: under the mma layout (the mma-layout pass)
  /// Load: the eviction hint of a load the spec lets take one (config::hintableLoadSites)
  /// and the entry of load_eviction_policies that gave it (-1 with None), set by
  /// apply-config.
  Eviction eviction = Eviction::None;
  int evictionEntry = -1;
  UnaryOp unary = UnaryOp::Neg;
  BinaryOp binary = BinaryOp::Add; // Binary; Scan: the combining op
  ReduceOp reduce = ReduceOp::Sum;
  std::optional<ScalarType> castTo; // Cast, Full (nullopt: the value's type)
  std::vector<Index> indices;       // Load, View
  bool gatherAll = false;           // Load
  std::vector<Dim> shape;           // Full, Arange, Reshape (Tile dims or One; Full dims)
  std::vector<ExprRef> shapeSizes;  // Full/Arange/Reshape: integer sizes for non-tile entries
  /// Rand: the vectorized tile along which its offsets step by one (the rand-runs
  /// pass): a thread's numbers along it are evaluated as a run. -1: one by one.
  int randRunTile = -1;
};

/// A tile variable, introduced by a tile loop: `for (auto tm : hl::tile(m))`.
struct TileVar {
  int id = -1;
  std::string name;
  SourceLoc loc;
  ExprRef begin;           ///< integer scalar (Const 0 when omitted)
  ExprRef end;             ///< integer scalar
  int blockSize = -1;      ///< index into Kernel::blockSizes
  bool isGrid = false;     ///< hl::grid: block size 1, the variable is a scalar index
  int flatOfParam = -1;    ///< `hl::tile(t.sizes())`: flattened over numel(t)
  MmaRole mma = MmaRole::None; ///< set by the mma-layout pass
};

/// One block size of the config (`block_sizes[i]`), or one fixed by the source.
struct BlockSizeDecl {
  int id = -1;
  std::string name;        ///< tile variable or register_block_size variable
  SourceLoc loc;
  std::optional<int64_t> fixed; ///< set when the source fixes it (hl::block_size(b) with a constant)
  int64_t min = 1, max = 1 << 20;
  ExprRef sizeHint;        ///< the extent it tiles (for the default config)
  /// Set by apply-config: the size the config gives it (config::resolveBlockSize), and
  /// its entry of block_sizes (-1: fixed by the source). Unset before that pass.
  std::optional<int64_t> chosen;
  int configIndex = -1;
};

/// A reduction axis: the `hl::all` dims that broadcasting shows to be one and the same
/// (x.size(1) in `x[tm, hl::all]` and weight.size(0) in `weight[hl::all]`). Config key
/// `reduction_loops[i]` chooses persistent (whole axis in registers) or looped.
struct Axis {
  int id = -1;
  int param = -1, dim = -1; ///< first tensor dim seen on it (its extent at run time)
  ExprRef extent;           ///< its extent when no tensor dim names it (`hl::zeros({tm, d})`)
  std::vector<std::pair<int, int>> tensorDims; ///< every (param, dim) found on this axis
  SourceLoc loc;
  /// Set by apply-config from reduction_loops[id]: 0 persistent (the whole axis in
  /// registers), n > 0 looped in chunks of n. -1 before that pass.
  int64_t loopChunk = -1;
  bool looped() const { return loopChunk > 0; }
};

/// One axis of the CTA's thread layout (the thread-layout pass): a tile, not an hl::grid
/// one, or a reduction axis, which gets a share of the CTA's threads.
struct ThreadAxis {
  bool isTile = true;
  int id = -1;        ///< tile id or axis id
  bool inner = false; ///< vectorized: neighbouring threads hold neighbouring elements
  /// Positions (in Kernel::threadLayout) of the earlier axes that some value spans with
  /// this one: its threads go past theirs. Axes that never meet share threads.
  std::vector<int> after;
  bool operator==(const ThreadAxis&) const = default;
};

struct Var {
  int id = -1;
  std::string name;
  SourceLoc loc;
};

enum class StmtKind : uint8_t {
  Let,    ///< `auto v = value;` (declares `var`)
  Assign, ///< `v = value;`
  Store,  ///< `param[indices...] = value` / `hl::store(param, {blocks}, value[, mask])`
  For,    ///< a tile loop over `tiles` (several for `hl::tile({m, n})`)
};

/// How the program ids of a grid loop (a top-level `For`) enumerate its tiles, decided
/// by the grid-mapping pass (lib/Transforms/GridMapping.cpp) from pid_type, loop_orders
/// and l2_groupings; the device emitter and the host launcher read it.
struct GridMapping {
  enum class Pid : uint8_t {
    Flat,                 ///< program id = blockIdx.x, after the earlier loops' programs
    Xyz,                  ///< blockIdx.x/y/z index the tiles (one grid loop, <= 3 tiles)
    PersistentBlocked,    ///< a program loops over a contiguous range of ids
    PersistentInterleaved ///< a program loops over ids strided by the grid size
  };
  Pid pid = Pid::Flat;
  std::vector<int> order;  ///< the loop's tiles as ids enumerate them, the first fastest
  int l2Group = 1;         ///< > 1 (two tiles): ids walk l2Group rows of order[0] at a time
  int loopOrderEntry = -1; ///< the loop_orders entry that gave `order`, or -1
  int l2Entry = -1;        ///< the l2_groupings entry that gave `l2Group`, or -1
  bool operator==(const GridMapping&) const = default;
};

const char* pidName(GridMapping::Pid pid); // "flat", "xyz", "persistent_blocked", ...

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  int var = -1;                 // Let, Assign
  ExprRef value;                // Let, Assign, Store
  int param = -1;               // Store
  std::vector<Index> indices;   // Store
  bool gatherAll = false;       // Store
  ExprRef mask;                 // Store (optional)
  std::vector<Dim> targetDims;  // Store: dims the subscript addresses (filled by infer-types)
  bool atomicAdd = false;       // Store: `hl::atomic_add`: adds the value atomically
  bool privateAtomic = false;   // atomic Store: into the program's shared-memory copy of the
                                // tensor, flushed once at the end (privatize-atomics)
  bool dotCopied = false;       // Let of a load: an mma dot copies it into shared memory
                                // itself, so the let is not emitted (mma-layout)
  bool hoisted = false;         // Let of a load in a persistent program's first grid loop
                                // that no tile subscripts: issued once, before the program
                                // loop (persistent-loads)
  bool staged = false;          // Let of a load of the next tile, copied into shared memory
                                // while the program works on this one (persistent-loads)
  /// Let of `amax(X, d)` over a looped reduction axis: the var of the later
  /// `sum(exp(X - m), d)` let computed in the same pass over the chunks (online
  /// softmax; the partner's `fused` is set), else -1 (online-softmax).
  int onlineSum = -1;
  bool fused = false;           // Let computed by an earlier let's online pass (online-softmax)
  bool recompute = false;       // Let over a reduction axis recomputed at each use, not held
                                // in registers (rematerialize)
  std::vector<int> tiles;       // For
  std::vector<StmtRef> body;    // For
  std::optional<GridMapping> grid; // For at the top level, set by grid-mapping
  /// For at the top level: the tiles of its staged lets in flight (num_stages, at least
  /// 2), set by persistent-loads; 0 when it stages none.
  int stages = 0;
  /// For, nested (not a grid loop): set by apply-config from range_unroll_factors,
  /// numbered as config::tileLoops numbers the inner loops: 0 leaves the unrolling to
  /// NVRTC, N unrolls the loop over its first tile N times (1 keeps it rolled). -1
  /// before that pass and on grid loops; unrollEntry is the entry, -1 when none.
  int unroll = -1;
  int unrollEntry = -1;
};

struct Param {
  enum class Kind : uint8_t { Tensor, Scalar };
  Kind kind = Kind::Tensor;
  std::string name;
  SourceLoc loc;
  ScalarType scalarType = ScalarType::F64; ///< Scalar: the host type (double, int64_t, ...)
  int rank = -1;                           ///< Tensor: known rank, -1 when generic
  bool captured = false;                   ///< a host local, not a function parameter
  bool specialized = false;                ///< Scalar from hl::specialize: a compile-time constant
};

/// What the launch of a kernel the generic emitter prints takes from the config,
/// resolved once by apply-config.
struct Launch {
  int threads = 32;           ///< 32 x num_warps, num_warps clamped to 1..32
  std::optional<int> maxnreg; ///< maxnreg: the kernel's register cap (__maxnreg__), or none
  int vectorBytes = 16;       ///< vector_bytes: the widest vector access; 16 for 0 (auto)
  int smMultiplier = 1;       ///< num_sm_multiplier: persistent programs per SM
  bool operator==(const Launch&) const = default;
};

struct MatmulMatch;    // helion/IR/TemplateMatch.h
struct AttentionMatch;
struct ChainMatch;

struct Kernel {
  std::string name;
  SourceLoc loc;
  std::vector<Param> params;
  std::vector<TileVar> tiles;
  std::vector<BlockSizeDecl> blockSizes;
  std::vector<Axis> axes;       ///< filled by infer-types
  std::vector<Var> vars;
  std::vector<StmtRef> body;    ///< the top-level tile loops (StmtKind::For), in order
  /// Its hl::dot take the general lowering even where a template's shape matches
  /// (ir::dotTemplate is None): the program a matmul template's launcher falls back to
  /// for operands the template cannot read (driver::compileCuda).
  bool generalDots = false;
  /// Set by thread-layout for a kernel the generic emitter prints: the CTA's layout
  /// axes, innermost (the lowest thread bits) first. Unset before that pass and for a
  /// kernel a template prints (ir::dotTemplate).
  std::optional<std::vector<ThreadAxis>> threadLayout;
  /// Set by apply-config for a kernel the generic emitter prints (ir::dotTemplate is
  /// None); unset before that pass and for a kernel a template prints.
  std::optional<Launch> launch;
  /// Set by template-plan for a kernel the matmul / flash-attention template prints
  /// (ir::dotTemplate): the template's parameters under the config. Unset otherwise.
  std::optional<GemmParams> gemm;
  std::optional<AttentionParams> flash;
  /// Set by recognize-templates for a kernel a template prints: the recognized loop
  /// (helion/IR/TemplateMatch.h). Unset otherwise.
  std::shared_ptr<const MatmulMatch> matmul;
  std::shared_ptr<const AttentionMatch> attention;
  /// A kernel the generic emitter prints with two chained dots: the chain loop
  /// recognize-templates found (Kernel::chain) and, when the config's tiles fit the
  /// sm_90a chain template, its parameters (template-plan). The launcher runs that
  /// template where the device and the tensors allow, else the generic kernel.
  std::shared_ptr<const ChainMatch> chain;
  std::optional<ChainParams> chainParams;

  std::vector<std::string> paramNames() const;
};

/// The number of operands each kind carries: {min, max}. The verifier checks every
/// node against it, so no pass can drop an operand the language gave.
std::pair<size_t, size_t> operandArity(ExprKind kind);

/// The mask of `hl::load(t, {...}, mask)`, or null.
inline const Expr* loadMask(const Expr& load) {
  return load.operands.empty() ? nullptr : load.operands[0].get();
}

/// Calls `f(child)` for every sub-expression of `e`: its operands, then the values of
/// its subscripts and its shape sizes. Walkers that must see every operand use it.
template <class F> void forEachChild(const Expr& e, F&& f) {
  for (const ExprRef& op : e.operands)
    f(*op);
  for (const Index& i : e.indices)
    if (i.value)
      f(*i.value);
  for (const ExprRef& s : e.shapeSizes)
    if (s)
      f(*s);
}

// Builders used by the frontend and passes (they only fill fields; infer-types types them).
ExprRef makeConst(double v, bool isInt, SourceLoc loc = {});
ExprRef makeParamRef(int param, SourceLoc loc = {});
ExprRef makeVarRef(int var, SourceLoc loc = {});
ExprRef makeUnary(UnaryOp op, ExprRef a, SourceLoc loc = {});
ExprRef makeBinary(BinaryOp op, ExprRef a, ExprRef b, SourceLoc loc = {});
ExprRef makeCast(ExprRef a, ScalarType to, SourceLoc loc = {});
ExprRef makeReduce(ReduceOp op, ExprRef a, int dim, bool keepdim, SourceLoc loc = {});
ExprRef makeLoad(int param, std::vector<Index> indices, SourceLoc loc = {});
/// A copy of `e` with `type` set (passes use it to rebuild typed trees).
ExprRef withType(const ExprRef& e, BlockType type);
ExprRef withOperands(const ExprRef& e, std::vector<ExprRef> operands);

} // namespace helion::ir
