//===- InferTypes.cpp - Dims and element types of every value --------------===//
//
// Walks the kernel in program order with an environment of variable types and
// rebuilds every expression with its BlockType. Broadcasting follows NumPy:
// dims align from the right, a dim of one stretches, two whole-tensor dims
// (`hl::all`) are the same *axis*. Axes are found by union-find over their
// keys, so x.size(1) and weight.size(0) in layer_norm become axis a0:
//
//   row   = x[tm, hl::all]        -> [tm, a(x,1)]
//   w     = weight[hl::all]       -> [a(weight,0)]
//   row*w                         -> unify a(x,1) ~ a(weight,0) -> [tm, a0]
//===----------------------------------------------------------------------===//
#include "helion/IR/Printer.h"
#include "helion/IR/Visitor.h"
#include "helion/Transforms/Passes.h"
#include "helion/hl/rules.h"

#include <functional>
#include <map>
#include <numeric>

namespace helion::ir {
namespace {

class TypeInference {
public:
  TypeInference(const Kernel& k, PassContext& ctx) : in_(k), ctx_(ctx) {}

  Kernel run() {
    // Pass 1 collects axis unifications; pass 2 types with final axis ids.
    walk(in_.body);
    finalAxes_ = true;
    assignAxisIds();
    varTypes_.clear();
    Kernel out = in_;
    out.body = walk(in_.body);
    for (const auto& [t, bounds] : deviceBounds_) {
      out.tiles[t].begin = bounds.first;
      out.tiles[t].end = bounds.second;
    }
    out.axes = axes_;
    return out;
  }

private:
  // --- axes ---------------------------------------------------------------
  int axisKey(const std::string& key, int param, int dim, ExprRef extent, SourceLoc loc) {
    auto it = keyIds_.find(key);
    if (it != keyIds_.end())
      return it->second;
    int id = static_cast<int>(parent_.size());
    parent_.push_back(id);
    Axis info;
    info.id = id;
    info.param = param;
    info.dim = dim;
    info.extent = std::move(extent);
    info.loc = std::move(loc);
    keyInfo_.push_back(info);
    keyIds_[key] = id;
    return id;
  }
  int find(int a) { return parent_[a] == a ? a : parent_[a] = find(parent_[a]); }
  void unify(int a, int b) {
    a = find(a), b = find(b);
    if (a != b)
      parent_[std::max(a, b)] = std::min(a, b);
  }
  void assignAxisIds() {
    for (size_t i = 0; i < parent_.size(); ++i) {
      int root = find(static_cast<int>(i));
      if (!rootToAxis_.count(root)) {
        Axis a = keyInfo_[root];
        a.id = static_cast<int>(axes_.size());
        rootToAxis_[root] = a.id;
        axes_.push_back(a);
      }
      const Axis& key = keyInfo_[i];
      if (key.param >= 0)
        axes_[rootToAxis_[root]].tensorDims.push_back({key.param, key.dim});
    }
  }
  /// During pass 1 Full dims carry key ids; in pass 2 the final axis ids.
  Dim fullDim(int key) {
    return Dim::full(finalAxes_ ? rootToAxis_.at(find(key)) : key);
  }
  bool sameAxis(const Dim& a, const Dim& b) {
    if (finalAxes_)
      return a.axis == b.axis;
    unify(a.axis, b.axis);
    return true;
  }

  // --- helpers --------------------------------------------------------------
  BlockType scalarType(ScalarType t) { return {ElemType::concrete(t), {}}; }

  void error(const SourceLoc& loc, const std::string& msg) {
    if (finalAxes_) // report once, in the second walk
      ctx_.diags.error(loc, msg);
  }

  /// Arithmetic on a block of 8-bit floats is an error, as in ref mode (a block of a
  /// tensor's own dtype is generic here: the CUDA code computes it in float).
  void noFloat8(const BlockType& t, const char* op, const SourceLoc& loc) {
    if (t.elem.isConcrete() && isFloat8(t.elem.scalar()))
      error(loc, rules::float8Message(op, scalarTypeName(t.elem.scalar())));
  }

  std::string dimsStr(const std::vector<Dim>& dims) {
    BlockType t{ElemType::concrete(ScalarType::F32), dims};
    std::string s = printType(in_, t);
    return s.substr(s.find('['));
  }

  std::vector<Dim> broadcast(const std::vector<Dim>& a, const std::vector<Dim>& b,
                             const SourceLoc& loc) {
    size_t n = std::max(a.size(), b.size());
    std::vector<Dim> out(n);
    for (size_t i = 0; i < n; ++i) {
      const Dim* da = i < n - a.size() ? nullptr : &a[i - (n - a.size())];
      const Dim* db = i < n - b.size() ? nullptr : &b[i - (n - b.size())];
      if (!da || da->kind == Dim::Kind::One) {
        out[i] = db ? *db : Dim::one();
      } else if (!db || db->kind == Dim::Kind::One) {
        out[i] = *da;
      } else if (da->kind == Dim::Kind::Full && db->kind == Dim::Kind::Full) {
        sameAxis(*da, *db);
        out[i] = *da;
      } else if (*da == *db) {
        out[i] = *da;
      } else {
        error(loc, "cannot broadcast blocks of shapes " + dimsStr(a) + " and " + dimsStr(b));
        out[i] = *da;
      }
    }
    return out;
  }

  static bool isWeakScalar(const Expr& e) {
    return (e.kind == ExprKind::Const || e.kind == ExprKind::Param) && e.type &&
           e.type->isScalar();
  }

  /// PyTorch: a Python scalar does not promote a tensor of the same category.
  ElemType promoteOperands(const Expr& a, const Expr& b) {
    const ElemType &ta = a.type->elem, &tb = b.type->elem;
    auto isIntLike = [](const ElemType& t) {
      return t.isConcrete() && !isFloat(t.scalar());
    };
    if (isWeakScalar(a) && !isWeakScalar(b))
      return isIntLike(tb) && !isIntLike(ta) ? ElemType::concrete(ScalarType::F32) : tb;
    if (isWeakScalar(b) && !isWeakScalar(a))
      return isIntLike(ta) && !isIntLike(tb) ? ElemType::concrete(ScalarType::F32) : ta;
    return ElemType::promote(ta, tb);
  }

  int normDim(int dim, int rank, const SourceLoc& loc) {
    int d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= rank) {
      error(loc, "dimension " + std::to_string(dim) + " out of range for a block of rank " +
                     std::to_string(rank));
      return 0;
    }
    return d;
  }

  std::vector<Dim> subscriptDims(int param, const std::vector<Index>& ix, const SourceLoc& loc,
                                 std::vector<Index>& typedIx) {
    std::vector<Dim> dims;
    int tensorDim = 0;
    for (const Index& i : ix) {
      Index t = i;
      switch (i.kind) {
      case Index::Kind::Tile: dims.push_back(Dim::ofTile(i.tile)); ++tensorDim; break;
      case Index::Kind::Flat: dims.push_back(Dim::ofTile(i.tile)); ++tensorDim; break;
      case Index::Kind::All: {
        std::string key = "t" + std::to_string(param) + "." + std::to_string(tensorDim);
        dims.push_back(fullDim(axisKey(key, param, tensorDim, nullptr, loc)));
        ++tensorDim;
        break;
      }
      case Index::Kind::NewAxis: dims.push_back(Dim::one()); break;
      case Index::Kind::Scalar: t.value = expr(i.value); ++tensorDim; break;
      case Index::Kind::Gather:
        t.value = expr(i.value);
        checkIndexDtype(*t.value, "subscript");
        for (const Dim& d : t.value->type->dims)
          dims.push_back(d);
        ++tensorDim;
        break;
      }
      typedIx.push_back(t);
    }
    const Param& p = in_.params.at(param);
    if (p.rank >= 0 && tensorDim != p.rank && !(ix.size() == 1 && ix[0].kind == Index::Kind::Flat))
      error(loc, "tensor '" + p.name + "' has rank " + std::to_string(p.rank) + " but " +
                     std::to_string(tensorDim) + " indices were given");
    return dims;
  }

  /// Index blocks hold integers: the rule and message ref mode uses (hl/rules.h). A
  /// tensor's own dtype is chosen at instantiation (index tensors are integers then).
  /// A promotion with a concrete float or bool side is at least that float (or bool,
  /// when it is all bools), whatever the tensor dtypes turn out to be.
  void checkIndexDtype(const Expr& index, const char* what) {
    std::optional<ScalarType> known;
    bool symbolic = false;
    std::function<void(const ElemType&)> see = [&](const ElemType& t) {
      switch (t.kind()) {
      case ElemType::Kind::Concrete:
        if (!known || (isFloat(t.scalar()) && (!isFloat(*known) ||
                                               scalarTypeBytes(t.scalar()) > scalarTypeBytes(*known))))
          known = t.scalar();
        return;
      case ElemType::Kind::OfParam: symbolic = true; return;
      case ElemType::Kind::Promote: see(t.lhs()); see(t.rhs()); return;
      }
    };
    see(index.type->elem);
    if (!known || (symbolic && !isFloat(*known)))
      return; // an index tensor's dtype (an integer at instantiation), or its promotion
    if (!rules::isIndexDtype(scalarTypeName(*known)))
      error(index.loc, rules::indexDtypeMessage(what, scalarTypeName(*known)));
  }

  // --- expressions ----------------------------------------------------------
  ExprRef expr(const ExprRef& e) {
    auto out = std::make_shared<Expr>(*e);
    for (ExprRef& op : out->operands)
      op = expr(op);
    out->type = typeOf(*out);
    return out;
  }

  BlockType typeOf(Expr& e) {
    auto opType = [&](size_t i) -> const BlockType& { return *e.operands.at(i)->type; };
    switch (e.kind) {
    case ExprKind::Const:
      return scalarType(e.isInt ? ScalarType::I64 : ScalarType::F32);
    case ExprKind::Param: return scalarType(in_.params.at(e.param).scalarType);
    case ExprKind::Var: {
      auto it = varTypes_.find(e.var);
      if (it == varTypes_.end()) {
        ctx_.diags.error(e.loc, "internal compiler error: variable used before its definition");
        return scalarType(ScalarType::F32);
      }
      return it->second;
    }
    case ExprKind::TileAttr:
    case ExprKind::TensorSize: return scalarType(ScalarType::I64);
    case ExprKind::TileIndex: return {ElemType::concrete(ScalarType::I64), {Dim::ofTile(e.tile)}};
    case ExprKind::Load: {
      std::vector<Index> typedIx;
      std::vector<Dim> dims;
      if (e.gatherAll) {
        for (const Index& i : e.indices) {
          Index t = i;
          t.value = expr(i.value);
          checkIndexDtype(*t.value, "load");
          dims = broadcast(dims, t.value->type->dims, e.loc);
          typedIx.push_back(t);
        }
        // As in ref mode, the mask broadcasts with the indices (it may add dims).
        if (const Expr* mask = loadMask(e))
          dims = broadcast(dims, mask->type->dims, e.loc);
      } else {
        dims = subscriptDims(e.param, e.indices, e.loc, typedIx);
      }
      e.indices = typedIx;
      return {ElemType::ofParam(e.param), dims};
    }
    case ExprKind::Unary: {
      BlockType t = opType(0);
      noFloat8(t, unaryOpName(e.unary), e.loc);
      if (e.unary == UnaryOp::Not)
        t.elem = ElemType::concrete(ScalarType::B8);
      if (e.unary == UnaryOp::Neg && t.elem.isConcrete() &&
          !rules::isNegatable(scalarTypeName(t.elem.scalar())))
        error(e.loc, rules::negateBoolMessage());
      if (e.unary == UnaryOp::BitNot && t.elem.isConcrete() &&
          !rules::isBitwiseDtype(scalarTypeName(t.elem.scalar())))
        error(e.loc, rules::bitwiseMessage("~", scalarTypeName(t.elem.scalar())));
      // exp, log, ... of an integer or bool block are f32 (ref mode: hl/ops.h unary);
      // floor, ceil and round of an integer are the integer.
      bool keepsType = e.unary == UnaryOp::Neg || e.unary == UnaryOp::Abs ||
                       e.unary == UnaryOp::Not || e.unary == UnaryOp::Floor ||
                       e.unary == UnaryOp::Ceil || e.unary == UnaryOp::Round ||
                       e.unary == UnaryOp::BitNot;
      if (!keepsType && t.elem.isConcrete() && !isFloat(t.elem.scalar()))
        t.elem = ElemType::concrete(ScalarType::F32);
      return t;
    }
    case ExprKind::Binary: {
      noFloat8(opType(0), binaryOpName(e.binary), e.loc);
      noFloat8(opType(1), binaryOpName(e.binary), e.loc);
      BlockType t{promoteOperands(*e.operands[0], *e.operands[1]),
                  broadcast(opType(0).dims, opType(1).dims, e.loc)};
      switch (e.binary) {
      case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
      case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::And: case BinaryOp::Or:
        t.elem = ElemType::concrete(ScalarType::B8);
        break;
      case BinaryOp::BitAnd: case BinaryOp::BitOr: case BinaryOp::BitXor:
      case BinaryOp::Shl: case BinaryOp::Shr: {
        static const char* sym[] = {"&", "|", "^", "<<", ">>"};
        if (t.elem.isConcrete() && !rules::isBitwiseDtype(scalarTypeName(t.elem.scalar())))
          error(e.loc, rules::bitwiseMessage(
                           sym[static_cast<int>(e.binary) - static_cast<int>(BinaryOp::BitAnd)],
                           scalarTypeName(t.elem.scalar())));
        break;
      }
      case BinaryOp::Pow: // computed in floating point, as in ref mode
        if (t.elem.isConcrete() && !isFloat(t.elem.scalar()))
          t.elem = ElemType::concrete(ScalarType::F32);
        break;
      default: break;
      }
      return t;
    }
    case ExprKind::Where: {
      auto dims = broadcast(broadcast(opType(0).dims, opType(1).dims, e.loc), opType(2).dims, e.loc);
      return {promoteOperands(*e.operands[1], *e.operands[2]), dims};
    }
    case ExprKind::Cast:
      return {e.castTo ? ElemType::concrete(*e.castTo) : ElemType::ofParam(e.param), opType(0).dims};
    case ExprKind::Reduce: {
      BlockType t = opType(0);
      noFloat8(t, reduceOpName(e.reduce), e.loc);
      int d = normDim(e.dim, t.rank(), e.loc);
      e.dim = d;
      if (t.rank() == 0)
        return t;
      if (e.keepdim)
        t.dims[d] = Dim::one();
      else
        t.dims.erase(t.dims.begin() + d);
      if (e.reduce == ReduceOp::Mean && t.elem.isConcrete() && !isFloat(t.elem.scalar()))
        t.elem = ElemType::concrete(ScalarType::F32);
      if (e.reduce == ReduceOp::ArgMax || e.reduce == ReduceOp::ArgMin)
        t.elem = ElemType::concrete(ScalarType::I64);
      return t;
    }
    case ExprKind::Full:
    case ExprKind::Arange:
    case ExprKind::Reshape: {
      std::vector<Dim> dims;
      size_t sized = 0;
      std::vector<ExprRef> sizes;
      for (const Dim& d : e.shape) {
        if (d.kind == Dim::Kind::Tile) {
          dims.push_back(d);
          continue;
        }
        if (sized >= e.shapeSizes.size()) {
          dims.push_back(Dim::one());
          continue;
        }
        ExprRef size = expr(e.shapeSizes[sized++]);
        sizes.push_back(size);
        if (size->kind == ExprKind::Const && size->value == 1) {
          dims.push_back(Dim::one());
          continue;
        }
        std::string key = "e:" + printExpr(in_, *size);
        int param = size->kind == ExprKind::TensorSize ? size->param : -1;
        int dim = size->kind == ExprKind::TensorSize ? size->dim : -1;
        std::string tkey = param >= 0 ? "t" + std::to_string(param) + "." + std::to_string(dim) : key;
        dims.push_back(fullDim(axisKey(tkey, param, dim, size, e.loc)));
      }
      e.shapeSizes = sizes;
      if (e.kind == ExprKind::Reshape)
        return {opType(0).elem, dims};
      if (e.kind == ExprKind::Arange)
        return {ElemType::concrete(ScalarType::I64), dims};
      return {e.castTo ? ElemType::concrete(*e.castTo) : ElemType::concrete(ScalarType::F32), dims};
    }
    case ExprKind::View: {
      const BlockType& src = opType(0);
      std::vector<Dim> dims;
      size_t next = 0;
      for (const Index& i : e.indices) {
        if (i.kind == Index::Kind::NewAxis)
          dims.push_back(Dim::one());
        else if (i.kind == Index::Kind::All && next < src.dims.size())
          dims.push_back(src.dims[next++]);
        else
          error(e.loc, "a block can only be subscripted with hl::all and hl::newaxis");
      }
      while (next < src.dims.size())
        dims.push_back(src.dims[next++]);
      return {src.elem, dims};
    }
    case ExprKind::Transpose: {
      BlockType t = opType(0);
      int a = normDim(e.dim, t.rank(), e.loc), b = normDim(e.dim2, t.rank(), e.loc);
      if (t.rank() > 0)
        std::swap(t.dims[a], t.dims[b]);
      return t;
    }
    case ExprKind::Scan: { // the operand's shape; integers and bools scan in i64, as torch
      BlockType t = opType(0);
      e.dim = normDim(e.dim, t.rank(), e.loc);
      if (t.elem.isConcrete() && !isFloat(t.elem.scalar()))
        t.elem = ElemType::concrete(ScalarType::I64);
      return t;
    }
    case ExprKind::Rand: {
      const BlockType &seed = opType(0), &offsets = opType(1);
      if (seed.rank() != 0)
        error(e.operands[0]->loc, "hl::rand: the seed must be a scalar, got a block of shape " +
                                      dimsStr(seed.dims));
      else if (seed.elem.isConcrete() && isFloat(seed.elem.scalar()))
        error(e.operands[0]->loc, std::string("hl::rand: the seed must be an integer, got ") +
                                      scalarTypeName(seed.elem.scalar()));
      if (offsets.elem.isConcrete() && isFloat(offsets.elem.scalar()))
        error(e.operands[1]->loc, std::string("hl::rand: offsets must be an integer block, got ") +
                                      scalarTypeName(offsets.elem.scalar()));
      return {ElemType::concrete(ScalarType::F32), offsets.dims};
    }
    case ExprKind::Dot: {
      const BlockType &a = opType(0), &b = opType(1);
      if (a.rank() < 2 || b.rank() < 2 || a.rank() != b.rank()) {
        error(e.loc, "hl::dot expects two 2-D or two batched 3-D blocks, got " + dimsStr(a.dims) +
                         " and " + dimsStr(b.dims));
        return {ElemType::concrete(ScalarType::F32), a.dims};
      }
      Dim k1 = a.dims[a.rank() - 1], k2 = b.dims[b.rank() - 2];
      if (k1.kind == Dim::Kind::Full && k2.kind == Dim::Kind::Full)
        sameAxis(k1, k2);
      else if (!(k1 == k2))
        error(e.loc, "hl::dot: inner dimensions differ: " + dimsStr(a.dims) + " and " +
                         dimsStr(b.dims));
      std::vector<Dim> dims(a.dims.begin(), a.dims.end() - 1);
      dims.push_back(b.dims.back());
      if (e.operands.size() > 2)
        dims = broadcast(opType(2).dims, dims, e.loc);
      ElemType elem = e.operands.size() > 2 ? opType(2).elem : ElemType::concrete(ScalarType::F32);
      return {elem, dims};
    }
    }
    return scalarType(ScalarType::F32);
  }

  // --- statements -----------------------------------------------------------
  std::vector<StmtRef> walk(const std::vector<StmtRef>& body) {
    std::vector<StmtRef> out;
    for (const StmtRef& s : body)
      out.push_back(stmt(*s));
    return out;
  }

  StmtRef stmt(const Stmt& s) {
    auto out = std::make_shared<Stmt>(s);
    switch (s.kind) {
    case StmtKind::Let:
      out->value = expr(s.value);
      varTypes_[s.var] = *out->value->type;
      break;
    case StmtKind::Assign: {
      out->value = expr(s.value);
      auto it = varTypes_.find(s.var);
      if (it != varTypes_.end()) {
        // `acc = acc * alpha` must keep the variable's shape: the carried value lives in
        // registers of a fixed layout.
        std::vector<Dim> merged = broadcast(it->second.dims, out->value->type->dims, s.loc);
        if (merged.size() != it->second.dims.size() ||
            !std::equal(merged.begin(), merged.end(), it->second.dims.begin(),
                        [](const Dim& a, const Dim& b) { return a.kind == b.kind; }))
          error(s.loc, "assignment changes the shape of '" + in_.vars.at(s.var).name + "' from " +
                           dimsStr(it->second.dims) + " to " + dimsStr(out->value->type->dims));
      }
      break;
    }
    case StmtKind::Store: {
      std::vector<Index> typedIx;
      if (s.gatherAll) {
        for (const Index& i : s.indices) {
          Index t = i;
          t.value = expr(i.value);
          checkIndexDtype(*t.value, "store");
          typedIx.push_back(t);
        }
        out->indices = typedIx;
        out->value = expr(s.value);
        std::vector<Dim> dims;
        for (const Index& i : typedIx)
          dims = broadcast(dims, i.value->type->dims, s.loc);
        if (s.mask) { // as in ref mode, the mask broadcasts with the indices
          out->mask = expr(s.mask);
          dims = broadcast(dims, out->mask->type->dims, s.loc);
        }
        out->targetDims = dims;
      } else {
        out->targetDims = subscriptDims(s.param, s.indices, s.loc, typedIx);
        out->indices = typedIx;
        out->value = expr(s.value);
        // The value broadcasts to the subscript's shape (this also unifies the
        // target's `hl::all` dims with the value's axes).
        std::vector<Dim> merged = broadcast(out->targetDims, out->value->type->dims, s.loc);
        if (merged.size() > out->targetDims.size())
          error(s.loc, "cannot store a block of shape " + dimsStr(out->value->type->dims) +
                           " into a subscript of shape " + dimsStr(out->targetDims));
      }
      if (s.mask && !out->mask)
        out->mask = expr(s.mask);
      break;
    }
    case StmtKind::For:
      for (int t : s.tiles)
        typeDeviceBounds(t);
      out->body = walk(s.body);
      break;
    }
    return out;
  }

  /// Bounds over host values stay untyped (the launcher and the emitter print them as
  /// they are); a bound that reads device values (`hl::tile(start, end)` after `auto
  /// start = offsets[row];`, a jagged loop) is typed here and must be a 0-d integer.
  void typeDeviceBounds(int t) {
    const TileVar& tv = in_.tiles.at(t);
    auto typed = [&](const ExprRef& b) -> ExprRef {
      bool device = false;
      if (b)
        walkExpr(*b, [&](const Expr& e) {
          device |= e.kind == ExprKind::Var || e.kind == ExprKind::Load ||
                    e.kind == ExprKind::Reduce || e.kind == ExprKind::TileIndex;
        });
      if (!device)
        return b;
      ExprRef e = expr(b);
      const BlockType& bt = *e->type;
      if (bt.rank() != 0)
        error(b->loc, "a loop bound must be a scalar (a 0-d integer block), found a block of "
                      "shape " + dimsStr(bt.dims));
      else if (bt.elem.isConcrete() && isFloat(bt.elem.scalar()))
        error(b->loc, std::string("a loop bound must be an integer, found ") +
                          scalarTypeName(bt.elem.scalar()));
      return e;
    };
    deviceBounds_[t] = {typed(tv.begin), typed(tv.end)};
  }

  const Kernel& in_;
  PassContext& ctx_;
  std::map<int, std::pair<ExprRef, ExprRef>> deviceBounds_;
  bool finalAxes_ = false;
  std::map<int, BlockType> varTypes_;
  std::map<std::string, int> keyIds_;
  std::vector<int> parent_;
  std::vector<Axis> keyInfo_;
  std::map<int, int> rootToAxis_;
  std::vector<Axis> axes_;
};

} // namespace

Kernel inferTypes(const Kernel& kernel, PassContext& ctx) { return TypeInference(kernel, ctx).run(); }

} // namespace helion::ir
