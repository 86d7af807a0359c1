//===- helion/Config/Sites.h - Tile loops and memory sites ------*- C++ -*-===//
//
// Config entries that belong to places in the kernel (loop_orders, indexing,
// load_eviction_policies, ...) are numbered by one walk of the kernel body:
//
//   * statements in pre-order: a tile loop (`For`) is numbered before the loops in
//     its body, and statements of a body in order;
//   * within a statement, operands before the node: for a `Let`/`Assign` the value
//     expression; for a `Store` the index expressions (scalar and gather subscripts,
//     left to right), then the stored value, then the mask, then the store itself;
//   * within an expression, post-order: operands left to right, then the index
//     expressions of a Load/View, then the node. So `load y[load idx[tb]]` numbers
//     the `idx` load before the `y` load.
//   * a node shared by several parents (the IR is a DAG of shared_ptrs) is numbered
//     once, at its first visit. Tile loop bounds are not walked (they are host scalars).
//
// Example (matmul): loop 0 = `for tm, tn` (grid), loop 1 = `for tk` (inner);
// site 0 = load x[tm, tk], site 1 = load y[tk, tn], site 2 = store out[tm, tn].
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <vector>

namespace helion::config {

/// A tile loop (`StmtKind::For`) of the kernel, in pre-order.
struct LoopInfo {
  const ir::Stmt* stmt = nullptr;
  int index = -1;         ///< position in the pre-order walk
  bool isGrid = false;    ///< a top-level loop: its tiles become the launch grid
  int depth = 0;          ///< 0 for grid loops
  std::vector<int> tiles; ///< tile variable ids
};

/// A load (`ExprKind::Load`) or store (`StmtKind::Store`): one entry of `indexing`.
struct Site {
  enum class Kind : uint8_t { Load, Store };
  Kind kind = Kind::Load;
  int index = -1;       ///< position among all sites (`indexing[index]`)
  int loadIndex = -1;   ///< position among load sites (`load_eviction_policies[i]`), -1 for stores
  const ir::Expr* load = nullptr;  ///< Load
  const ir::Stmt* store = nullptr; ///< Store
  int param = -1;       ///< the tensor parameter
  ir::SourceLoc loc;
};

std::vector<LoopInfo> tileLoops(const ir::Kernel& kernel);
std::vector<Site> loadStoreSites(const ir::Kernel& kernel);

} // namespace helion::config
