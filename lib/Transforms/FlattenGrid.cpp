//===- FlattenGrid.cpp - An independent inner tile loop joins the grid -----===//
//
// A kernel written with nested tile loops,
//
//   for tm in tile(m):           // the grid: one program per row tile
//     for tn in tile(n):         // its only statement: the programs loop over columns
//       BODY
//
// runs its column tiles one after another inside each program, so it launches only
// cdiv(m, BM) programs (32 for m = 4096: a quarter of an H100's SMs). When no
// iteration of the inner loop reads or overwrites what another one writes, the
// iterations are independent and the loop is the grid `for tm, tn in tile({m, n})`:
// every (tm, tn) its own program, as the kernel would be written with one 2-D tile
// loop. Then the rest of the pipeline sees that form: a matmul written this way takes
// the GEMM templates, a pointwise kernel gets 2-D programs.
//
// The inner loop joins its grid loop when
//   - it is the grid loop's only statement, over tiles (not hl::grid) from 0 to bounds
//     that are host values (constants, scalar parameters, tensor sizes): the same
//     loop in every program, so one grid covers it;
//   - the grid has at most 3 tiles afterwards (an inner loop may bring several:
//     `for tb { for tm, tn { ... } }`);
//   - BODY assigns no variable it does not declare (nothing is carried between
//     iterations);
//   - every plain store in BODY is subscripted by each of the inner loop's tiles
//     (iterations write disjoint elements), and any load of a tensor BODY stores reads
//     the store's own subscripts (an in-place update reads only what its iteration
//     writes);
//   - every hl::atomic_add in BODY goes to a tensor only atomics touch (AtomicTargets.h):
//     its sum does not depend on the order of the adds.
// It repeats while the new grid's body is again one such loop (three nested loops).
//
// A body with hl::dot becomes a GEMM template's grid (the matmul, a bmm), whose
// recognizer reads the grid's tiles as (b,) m, n: the joined tiles are put in the order
// of the dot's result (`for tn { for tm {...} }` gives the grid tm, tn), and the loops
// are joined only when the joined kernel still compiles under its default config (the
// rest of the pipeline, silently). A nested matmul whose one-grid form a template would
// reject (an epilogue it does not take, a block size the source fixes below its
// minimum) keeps its loops and the general lowering, as before this pass.
// An analysis pass, right after infer-types (the types do not depend on the loops): the
// config spec is the flattened kernel's.
//
//   for %tm in tile(0, %m) { for %tn in tile(0, %n) { ... } }
//   for %tm, %tn in tile(0, %m), tile(0, %n) { ... }
//===----------------------------------------------------------------------===//
#include "helion/Config/Config.h"
#include "helion/Config/ConfigSpec.h"
#include "helion/IR/AtomicTargets.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace helion::ir {
namespace {

/// Whether `e` is the same value in every program: constants, scalar parameters and
/// tensor sizes, combined by arithmetic.
bool hostValue(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Const:
  case ExprKind::Param:
  case ExprKind::TensorSize: return true;
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Cast:
    return std::all_of(e.operands.begin(), e.operands.end(),
                       [](const ExprRef& op) { return op && hostValue(*op); });
  default: return false;
  }
}

bool zeroConst(const ExprRef& e) { return !e || (e->kind == ExprKind::Const && e->value == 0); }

bool sameTiles(const std::vector<Index>& a, const std::vector<Index>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](const Index& x, const Index& y) {
           return x.kind == Index::Kind::Tile && y.kind == Index::Kind::Tile && x.tile == y.tile;
         });
}

/// Whether the iterations of `inner` are independent (the rules above).
bool independent(const Kernel& k, const Stmt& inner) {
  std::set<int> declared;
  walkStmts(inner.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Let)
      declared.insert(s.var);
  });
  const std::vector<int> atomicOnly = atomicOnlyTargets(k);
  std::map<int, std::vector<const std::vector<Index>*>> stores; // param -> plain stores
  bool ok = true;
  walkStmts(inner.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Assign && !declared.count(s.var))
      ok = false;
    if (s.kind != StmtKind::Store)
      return;
    if (s.atomicAdd) {
      ok &= std::binary_search(atomicOnly.begin(), atomicOnly.end(), s.param);
      return;
    }
    ok &= !s.gatherAll;
    for (int t : inner.tiles)
      ok &= std::any_of(s.indices.begin(), s.indices.end(), [t](const Index& i) {
        return i.kind == Index::Kind::Tile && i.tile == t;
      });
    stores[s.param].push_back(&s.indices);
  });
  walkExprs(inner.body, [&](const Expr& e) {
    if (e.kind != ExprKind::Load)
      return;
    auto it = stores.find(e.param);
    if (it == stores.end())
      return;
    ok &= !e.gatherAll && std::all_of(it->second.begin(), it->second.end(), [&](const auto* ix) {
      return sameTiles(*ix, e.indices);
    });
  });
  return ok;
}

bool isDot(const Expr& e) { return e.kind == ExprKind::Dot; }

/// `loop`'s tiles in the order of `dot`'s result dims, when those are exactly its tiles.
void orderLikeDot(Stmt& loop, const Expr& dot) {
  if (!dot.type || dot.type->dims.size() != loop.tiles.size())
    return;
  std::vector<int> order;
  for (const Dim& d : dot.type->dims) {
    if (d.kind != Dim::Kind::Tile ||
        std::find(loop.tiles.begin(), loop.tiles.end(), d.tile) == loop.tiles.end())
      return;
    order.push_back(d.tile);
  }
  loop.tiles = order;
}

/// The grid loop `grid` with its only statement joined into it, or null when it may
/// not be (the rules above).
StmtRef flattenOnce(const Kernel& k, const Stmt& grid) {
  if (grid.body.size() != 1 || grid.body[0]->kind != StmtKind::For)
    return nullptr;
  const Stmt& inner = *grid.body[0];
  if (inner.tiles.empty() || grid.tiles.size() + inner.tiles.size() > 3)
    return nullptr;
  for (int t : grid.tiles)
    if (k.tiles[t].isGrid || k.tiles[t].flatOfParam >= 0)
      return nullptr;
  for (int t : inner.tiles) {
    const TileVar& tv = k.tiles[t];
    if (tv.isGrid || tv.flatOfParam >= 0 || !zeroConst(tv.begin) || !tv.end ||
        !hostValue(*tv.end))
      return nullptr;
  }
  if (!independent(k, inner))
    return nullptr;
  auto out = std::make_shared<Stmt>(grid);
  out->tiles.insert(out->tiles.end(), inner.tiles.begin(), inner.tiles.end());
  out->body = inner.body;
  if (const Expr* dot = findExpr(out->body, isDot))
    orderLikeDot(*out, *dot);
  return out;
}

/// Whether `k` (analysis passes up to flatten-grid run) goes through the rest of the
/// analysis passes and the config passes under its default config without an error.
bool compilesUnderDefault(const Kernel& k) {
  std::ostringstream quiet;
  DiagnosticEngine diags(quiet);
  PassContext ctx{diags, nullptr};
  PipelineOptions silent;
  std::vector<Pass> rest;
  bool after = false;
  for (const Pass& p : pipeline()) {
    if (!p.needsConfig && after)
      rest.push_back(p);
    after = after || std::strcmp(p.name, "flatten-grid") == 0;
  }
  std::optional<Kernel> analyzed = runPasses(k, rest, ctx, silent);
  if (!analyzed)
    return false;
  const config::Config def = config::ConfigSpec::fromKernel(*analyzed).defaultConfig();
  PassContext configured{diags, &def};
  return runPipeline(*analyzed, /*configPart=*/true, configured, silent).has_value() &&
         !diags.hasErrors();
}

} // namespace

Kernel flattenGrid(const Kernel& kernel, PassContext&) {
  Kernel k = kernel;
  for (size_t i = 0; i < k.body.size(); ++i) {
    if (k.body[i]->kind != StmtKind::For)
      continue;
    while (StmtRef flat = flattenOnce(k, *k.body[i])) {
      if (findExpr(flat->body, isDot)) {
        Kernel trial = k;
        trial.body[i] = flat;
        if (!compilesUnderDefault(trial))
          break;
      }
      k.body[i] = std::move(flat);
    }
  }
  return k;
}

} // namespace helion::ir
