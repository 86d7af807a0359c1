//===- helion/IR/MmaPlan.h - The mma layout of a kernel's general dots -*- C++ -*-===//
//
// A generic kernel (no matmul or attention template) whose dots all fit the mma
// layout runs them on mma.sync register fragments (lib/CodeGen/EmitMmaDot.cpp):
//   - each dot result is held as accumulators: its row axis on thread bits 2.. (a
//     warp per 16 rows), its column axis on lanes % 4 in pairs;
//   - an operand that is a tensor load used only by the dot is copied by all threads
//     into shared memory (its let is not emitted);
//   - an A operand computed in registers whose K axis is a column axis is the A
//     fragment as it is;
//   - any other operand is written into shared memory by its owners;
//   - one dot (the first directly in a one-tile loop, alone in that loop, whose
//     operands are copied loads by tiles and whole dims, or A in registers) is
//     pipelined: its loop's next tiles are copied with cp.async while a tile's mma
//     runs;
//   - every other dot whose operands are all copied loads (or A in registers), directly
//     in the body of an inner tile loop, its loads by tiles of that loop or enclosing
//     ones, copies them early: at the top of each iteration of that loop.
// planMma() is the one decision: the mma-layout pass (lib/Transforms/MmaLayout.cpp)
// writes it into the IR for the emitter, and the config's size checks
// (UnrolledSize.cpp) and canonical form (Canonical.cpp) ask it the same question.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/IR/IR.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace helion::ir {

struct MmaPlan {
  struct Dot {
    const Expr* loadA = nullptr; ///< operand A copied from this load into shared memory
    const Expr* loadB = nullptr;
    const Stmt* letA = nullptr;  ///< the let of loadA, not emitted (or null: inline)
    const Stmt* letB = nullptr;
    bool registerA = false;      ///< A is the A fragment where it is, in registers
    const Stmt* earlyLoop = nullptr; ///< copies issued at the top of this loop's body
  };
  std::map<int, MmaRole> roles;         ///< tile id -> its role (every dot's rows, columns)
  std::map<const Expr*, Dot> dots;      ///< every dot of the kernel
  const Expr* pipelined = nullptr;      ///< the dot whose copies run ahead (or null)
  const Stmt* pipeLoop = nullptr;       ///< ... its loop
};

/// The mma layout of `kernel`'s dots under tile block sizes `blockSize(tile)`,
/// `numWarps` warps and `numStages` (below 2: no dot is pipelined), or nullopt when
/// the kernel has no dot or a dot the layout does not take (the shared-memory
/// fallback then runs them). The plan's pointers are into `kernel`.
std::optional<MmaPlan> planMma(const Kernel& kernel,
                               const std::function<int64_t(int tile)>& blockSize, int numWarps,
                               int numStages);

} // namespace helion::ir
