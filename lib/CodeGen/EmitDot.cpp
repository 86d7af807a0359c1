//===- EmitDot.cpp - The general hl::dot of the generic emitter ------------===//
//
// Dots the GEMM and attention templates do not take (DotShape.h, lib/Transforms/MatmulRecognizer.h):
// a dot of computed blocks, chained dots, a dot in any loop. Each one goes
// through shared memory to the tensor cores (hd::BlockDot, helion/dot.cuh):
//
//   let %d = dot(%a, %b, %acc)        // %a: [tm, tk], %b: [tk, tn]
// becomes
//   __syncthreads();                  // the staging area is free again
//   D0::zero_padding(dot_smem, ...);  // rows / columns past the mma shape
//   for my elements (m, k) of %a: D0::set_a(dot_smem, c_m, c_k, in bounds ? a : 0)
//   for my elements (k, n) of %b: D0::set_b(dot_smem, c_k, c_n, in bounds ? b : 0)
//   __syncthreads();
//   D0::mma(dot_smem, threadIdx.x, NT);   // every warp: 16 x 8 fragments, mma.sync
//   __syncthreads();
//   for my elements (m, n) of %d: d[...] = D0::get_c(dot_smem, c_m, c_n) + acc[...]
//
// Elements past a tile's end are staged as zeros, so they add nothing along K.
// One staging area (dot_smem, the largest site's bytes) serves every dot of the
// kernel; the barrier before each dot keeps one from overwriting another's
// result while a thread still reads it.
//===----------------------------------------------------------------------===//
#include "EmitterState.h"

#include "helion/Config/DotStaging.h"
#include "helion/IR/Visitor.h"

#include <optional>

namespace helion::codegen {

using namespace ir;


Emitter::DotDim Emitter::dotDim(const Dim& d) const {
  const int axis = layout_.dim(d);
  if (axis < 0)
    return {-1, "1", "0", "true"}; // a dim of size one (or a grid tile's one row)
  const std::string& x = axes_[axis].key;
  return {axis, "S_" + x, "c_" + x, inBounds(axis)};
}

bool Emitter::checkDot(const Expr& dot) {
  const BlockType &a = *dot.operands[0]->type, &b = *dot.operands[1]->type;
  // A batched dot is a 2-D one per program when its batch dims are one element there
  // (a grid tile of block size 1, hl::tile({b, ...}, hl::block_size({1, ...}))).
  auto oneMatrix = [&](const BlockType& t) {
    if (t.rank() != 2 && t.rank() != 3)
      return false;
    for (int d = 0; d + 2 < t.rank(); ++d) {
      const int ax = dotDim(t.dims[d]).axis;
      if (ax >= 0 && !(axes_[ax].isTile && tileBlockSize(axes_[ax].id) == 1))
        return false;
    }
    return true;
  };
  if (a.rank() != b.rank() || !oneMatrix(a) || !oneMatrix(b) || !oneMatrix(*dot.type)) {
    error(dot.loc, "the general hl::dot lowering takes 2-D blocks, or 3-D ones whose batch "
                   "tile has block size 1 (hl::block_size({1, ...})); other batched dots lower "
                   "only as a bmm (a grid loop over [tb, tm, tn] with a K loop, docs/gemm.md) "
                   "or as flash attention (docs/attention.md)");
    return false;
  }
  for (const Expr* op : {dot.operands[0].get(), dot.operands[1].get()}) {
    const ElemType& t = op->type->elem;
    if (t.isConcrete() && !isFloat(t.scalar())) {
      error(op->loc, "hl::dot on the tensor cores needs floating operands");
      return false;
    }
    if (t.isConcrete() && t.scalar() == ScalarType::F64) {
      error(op->loc, "hl::dot of f64 blocks is not supported by the CUDA backend (the tensor "
                     "cores take bf16, f16 and f32 as tf32)");
      return false;
    }
  }
  std::vector<int> all = axesOf(a), bAxes = axesOf(b), out = axesOf(*dot.type);
  all.insert(all.end(), bAxes.begin(), bAxes.end());
  all.insert(all.end(), out.begin(), out.end());
  for (int ax : all)
    if (axes_[ax].looped) {
      error(dot.loc, "a general hl::dot over a looped reduction axis is not supported; use "
                     "reduction_loops: null (persistent) for this kernel");
      return false;
    }
  // Sizes known here (tiles; whole reduction dims are template arguments): too
  // large even in 16-bit operands (f32 ones also fail the kernel's static_assert).
  auto known = [&](const Dim& d) -> std::optional<int64_t> {
    DotDim dd = dotDim(d);
    if (dd.axis < 0)
      return 1;
    if (!axes_[dd.axis].isTile)
      return std::nullopt;
    return tileBlockSize(axes_[dd.axis].id);
  };
  auto m = known(a.dims[a.rank() - 2]), n = known(b.dims[b.rank() - 1]),
       k = known(a.dims[a.rank() - 1]);
  if (m && n && k) {
    const int64_t bytes =
        mmaLayout_ ? config::mmaDotBytes(*m, *n, *k, 2, !mmaDots_.at(&dot).registerA)
                   : config::dotStagingBytes(*m, *n, *k, 2);
    if (bytes > config::kDotStagingLimit) {
      error(dot.loc, "config too large: the blocks of this hl::dot ([" + std::to_string(*m) +
                         ", " + std::to_string(*k) + "] x [" + std::to_string(*k) + ", " +
                         std::to_string(*n) + "]) need " + std::to_string(bytes) +
                         " bytes of shared memory in the general lowering, more than " +
                         std::to_string(config::kDotStagingLimit) + "; lower block_sizes");
      return false;
    }
  }
  return true;
}

void Emitter::emitDotStaging() {
  if (mmaLayout_)
    return emitMmaStaging();
  std::vector<const Expr*> dots;
  walkStmts(k_.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Let && s.value && s.value->kind == ExprKind::Dot)
      dots.push_back(s.value.get());
  });
  if (dots.empty())
    return;
  std::string bytes;
  std::vector<const Expr*> staged;
  for (const Expr* d : dots) {
    if (!checkDot(*d))
      continue;
    staged.push_back(d);
    const int site = static_cast<int>(dotSite_.size());
    dotSite_[d] = site;
    const BlockType &a = *d->operands[0]->type, &b = *d->operands[1]->type;
    const std::string name = "D" + std::to_string(site);
    line("// general hl::dot #" + std::to_string(site) + " (EmitDot.cpp): operands staged in "
         "shared memory, mma.sync");
    line("using " + name + " = hd::BlockDot<" + storageType(a.elem) + ", " +
         storageType(b.elem) + ", " + matDim(a, 0).size + ", " + matDim(b, 1).size + ", " +
         matDim(a, 1).size + ">;");
    bytes = bytes.empty() ? name + "::kBytes" : "hmax(" + bytes + ", " + name + "::kBytes)";
  }
  emitDotSmem(bytes, "blocks", staged);
}

/// The staging area of the kernel's dots: `bytes` (a C++ expression, empty: no dot).
/// Its static_assert names the dots' source lines: the block sizes that overflow may be
/// the source's own (`hl::block_size(128)`), and only the instantiation knows the
/// dtypes (operands other than two bf16 or two f16 are staged as f32).
void Emitter::emitDotSmem(const std::string& bytes, const std::string& what,
                          const std::vector<const Expr*>& dots) {
  if (bytes.empty())
    return;
  std::string where;
  for (const Expr* d : dots) {
    if (!d->loc.valid())
      continue;
    const std::string file = d->loc.file.substr(d->loc.file.find_last_of('/') + 1);
    where += (where.empty() ? " at " : ", ") + file + ":" + std::to_string(d->loc.line);
  }
  std::string quoted; // inside a C++ string literal
  for (char c : where)
    quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  line("constexpr int DOT_SMEM = " + bytes + ";");
  line("static_assert(DOT_SMEM <= " + std::to_string(config::kDotStagingLimit) +
       ", \"helionc: the " + what + " of the general hl::dot" + quoted +
       " need more than 48 KB of shared memory in these dtypes (operands other than two "
       "bf16 or two f16 are staged as f32); use smaller block sizes\");");
  // 1024: the swizzled B operands of the mma layout's wgmma form (dot.cuh).
  line("__shared__ __align__(1024) hd::uint8 dot_smem[DOT_SMEM];");
}

/// Stages one operand: each thread writes its elements (zeros past the tile ends).
void Emitter::stageDotOperand(const Expr& op, const std::string& site, const char* setter) {
  const BlockType& t = *op.type;
  DotDim r = matDim(t, 0), c = matDim(t, 1);
  std::vector<int> axes = axesOf(t);
  openElementLoops(axes);
  std::string bound = r.bound == "true" ? c.bound
                      : c.bound == "true" ? r.bound
                                          : r.bound + " && " + c.bound;
  std::string value = expr(op);
  if (bound != "true")
    value = "(" + bound + " ? " + computeType(t.elem) + "(" + value + ") : " +
            computeType(t.elem) + "(0))";
  line(site + "::" + setter + "(dot_smem, " + r.coord + ", " + c.coord + ", " + value + ");");
  closeElementLoops(axes);
}

void Emitter::emitDot(const Stmt& s, const Expr& dot, bool declare) {
  if (mmaLayout_)
    return emitMmaDot(s, dot, declare);
  auto it = dotSite_.find(&dot);
  if (it == dotSite_.end()) {
    if (ok_) // checkDot reported why; otherwise this is a bug
      error(dot.loc, "internal compiler error: a dot without a staging site");
    return;
  }
  const std::string site = "D" + std::to_string(it->second);
  line("__syncthreads(); // the staging area is free (an earlier dot's readers are done)");
  line(site + "::zero_padding(dot_smem, threadIdx.x, NT);");
  stageDotOperand(*dot.operands[0], site, "set_a");
  stageDotOperand(*dot.operands[1], site, "set_b");
  line("__syncthreads();");
  line(site + "::mma(dot_smem, threadIdx.x, NT);");
  line("__syncthreads();");
  if (declare)
    declareVar(s.var, *dot.type);
  std::vector<int> target = varAxes_[s.var];
  DotDim m = matDim(*dot.operands[0]->type, 0), n = matDim(*dot.operands[1]->type, 1);
  openElementLoops(target);
  std::string value = site + "::get_c(dot_smem, " + m.coord + ", " + n.coord + ")";
  if (dot.operands.size() > 2)
    value += " + " + expr(*dot.operands[2]);
  line(elementRef(varName(s.var), target) + " = " + computeType(dot.type->elem) + "(" + value +
       ");");
  closeElementLoops(target);
}

} // namespace helion::codegen
