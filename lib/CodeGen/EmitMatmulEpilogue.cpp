//===- EmitMatmulEpilogue.cpp - The matmul's epilogue functor --------------===//
//
// The statements after the K loop, printed as a functor that gets each accumulator
// value with its (row, col) in C and replays the epilogue for that element: lets
// become locals, loads read at (row, col), stores write (EmitMatmul.cpp's top
// comment has an example). Also the tensors and scalars it reads or writes, which
// become kernel arguments.
//===----------------------------------------------------------------------===//
#include "MatmulEmitter.h"

#include "helion/IR/Visitor.h"

#include <map>
#include <set>

namespace helion::codegen::matmul {

void MatmulEmitter::collectArgs() {
  std::map<int, int> rank;
  std::set<int> scalars, stored;
  auto see = [&](const Expr& e) {
    if (e.kind == ExprKind::Load) {
      int r = 0;
      for (const Index& ix : e.indices)
        r += ix.kind != Index::Kind::NewAxis;
      rank[e.param] = std::max(rank[e.param], r);
    }
    if (e.kind == ExprKind::Param)
      scalars.insert(e.param);
  };
  if (p_.aPrologue) // A's load is read by the template: its scalars and vectors are fields
    walkExpr(*p_.aPrologue, [&](const Expr& e) {
      if (e.kind == ExprKind::Param || (e.kind == ExprKind::Load && e.param != p_.a))
        see(e);
    });
  for (const ExprRef& f : {p_.kScaleRow, p_.kScaleCol}) // a product scaled per K block
    if (f)
      walkExpr(*f, see);
  for (const StmtRef& s : p_.epilogue) {
    walkExpr(*s->value, see);
    if (s->kind == StmtKind::Store) {
      rank[s->param] = std::max(rank[s->param], batched() ? 3 : 2);
      stored.insert(s->param);
    }
  }
  for (size_t i = 0; i < k_.params.size(); ++i) {
    const Param& prm = k_.params[i];
    int ip = static_cast<int>(i);
    if (prm.kind == Param::Kind::Tensor) {
      out_.templateArgs.push_back({TemplateArg::Kind::DType, ip});
      out_.paramRanks.push_back(rank.count(ip) ? rank[ip] : -1);
      if (!rank.count(ip))
        continue;
      out_.args.push_back({KernelArg::Kind::Pointer, ip});
      fields_.push_back(std::string(stored.count(ip) ? "" : "const ") + genType(prm) +
                        "* __restrict__ " + genName(prm));
      for (int d = 0; d < rank[ip]; ++d) {
        out_.args.push_back({KernelArg::Kind::Size, ip, d});
        fields_.push_back("int64 " + genSize(prm, d));
      }
      for (int d = 0; d < rank[ip]; ++d) {
        out_.args.push_back({KernelArg::Kind::Stride, ip, d});
        fields_.push_back("int64 " + genStride(prm, d));
      }
    } else {
      out_.paramRanks.push_back(-1);
      if (prm.specialized) {
        out_.templateArgs.push_back({TemplateArg::Kind::Specialized, ip});
      } else if (scalars.count(ip)) {
        out_.args.push_back({KernelArg::Kind::Scalar, ip});
        fields_.push_back(ctype(ElemType::concrete(prm.scalarType)) + " " + genName(prm));
      }
    }
  }
  out_.templateArgs.push_back({TemplateArg::Kind::EpilogueForm, -1});
}

std::string MatmulEmitter::templateParams() const {
  std::string t;
  for (const TemplateArg& a : out_.templateArgs) {
    t += t.empty() ? "" : ", ";
    switch (a.kind) {
    case TemplateArg::Kind::DType: t += "class " + genType(name(a.index)); break;
    case TemplateArg::Kind::Specialized: t += "hd::int64 " + name(a.index); break;
    case TemplateArg::Kind::EpilogueForm: t += "int TMA_STORE"; break;
    default: break;
    }
  }
  return t;
}

std::string MatmulEmitter::templateNames() const {
  std::string t;
  for (const TemplateArg& a : out_.templateArgs) {
    if (a.kind == TemplateArg::Kind::EpilogueForm)
      continue;
    t += (t.empty() ? "" : ", ") +
         (a.kind == TemplateArg::Kind::DType ? genType(name(a.index)) : name(a.index));
  }
  return t;
}

std::string MatmulEmitter::offset(int param, const std::vector<Index>& ix,
                                  const std::string& row, const std::string& col) const {
  std::string off;
  int d = 0;
  for (const Index& i : ix) {
    if (i.kind == Index::Kind::NewAxis)
      continue;
    std::string coord = i.kind == Index::Kind::Scalar ? "batch__" // g
                        : i.tile == p_.tileM          ? row
                        : i.tile == p_.tileN          ? col
                        : i.tile == p_.tileK          ? "k__" // the A prologue's
                                                      : coordOf(i.tile);
    off += (off.empty() ? "" : " + ") + coord + " * " + genStride(name(param), d++);
  }
  return off.empty() ? "0" : off;
}

std::string MatmulEmitter::ex(const Expr& e, bool clamped) const {
  return cudaElement(e, k_, [&](const Expr& x, const auto& op) -> std::optional<std::string> {
    switch (x.kind) {
    case ExprKind::TileIndex: return coordOf(x.tile);
    case ExprKind::Full: return ctype(x.type->elem) + "(" + op(*x.operands[0]) + ")"; // a constant tile
    case ExprKind::Load:
      // No branch: in transform rows and columns past M and N read at M - 1 and N - 1
      // (their values are never stored), so bias[col] is one load per column a thread
      // holds, shared by its rows, where a branch per element kept a load per element
      // (PTX). apply runs below M and N only.
      return "hd::to_compute(" + name(x.param) + "[" +
             (clamped ? offset(x.param, x.indices, "(row__ < M__ ? row__ : M__ - 1)",
                               "(col__ < N__ ? col__ : N__ - 1)")
                      : offset(x.param, x.indices)) +
             "])";
    default: return std::nullopt;
    }
  });
}

std::string MatmulEmitter::kScaleEx(const Expr& e) const {
  // The source's blocks: tm and tn are the config's BM and BN, tk the scales' block.
  auto block = [&](int t) {
    return std::to_string(t == p_.tileM   ? p_.gemm.bm
                          : t == p_.tileN ? p_.gemm.bn
                                          : p_.gemm.kScaleBlock);
  };
  auto coord = [&](int t) { return std::string(t == p_.tileM ? "row__" : "col__"); };
  return cudaElement(e, k_, [&](const Expr& x, const auto& op) -> std::optional<std::string> {
    switch (x.kind) {
    case ExprKind::TileIndex: return coord(x.tile);
    case ExprKind::TileAttr: {
      const std::string id = x.tile == p_.tileK ? "kb__" : "(" + coord(x.tile) + " / " +
                                                             block(x.tile) + ")";
      switch (x.attr) {
      case TileAttr::Id: return id;
      case TileAttr::Begin: return "(" + id + " * " + block(x.tile) + ")";
      case TileAttr::BlockSize: return "int64(" + block(x.tile) + ")";
      default: return std::nullopt; // End: not a factor (ScaledDot.cpp)
      }
    }
    case ExprKind::Full: return ctype(x.type->elem) + "(" + op(*x.operands[0]) + ")";
    case ExprKind::Load: {
      std::string off;
      int d = 0;
      for (const Index& i : x.indices) {
        if (i.kind == Index::Kind::NewAxis)
          continue;
        const std::string c = i.kind == Index::Kind::Tile ? coord(i.tile)
                                                          : "int64(" + op(*i.value) + ")";
        off += (off.empty() ? "" : " + ") + c + " * " + genStride(name(x.param), d++);
      }
      return "hd::to_compute(" + name(x.param) + "[" + (off.empty() ? "0" : off) + "])";
    }
    default: return std::nullopt;
    }
  });
}

void MatmulEmitter::body(std::ostringstream& os, const std::function<void(const Stmt&)>& store,
                         bool clamped) const {
  os << "    float v" << p_.accVar << " = acc__;\n";
  cudaEpilogueStmts(os, p_.epilogue, k_, [&](const Expr& e) { return ex(e, clamped); }, store);
}

void MatmulEmitter::emitEpilogue(std::ostringstream& os) {
  os << "/// The epilogue of '" << k_.name << "' for one element of the accumulator.\n";
  os << "template <" << templateParams() << ">\nstruct " << k_.name << "_epilogue {\n";
  os << "  int64 M__, N__;\n";
  for (const std::string& f : fields_)
    os << "  " << f << ";\n";
  os << "  __device__ __forceinline__ void apply(" << coordParams() << ", float acc__) const {\n";
  body(os, [&](const Stmt& s) {
    os << "    " << name(s.param) << "[" << offset(s.param, s.indices)
       << "] = hd::from_compute<" << genType(name(s.param)) << ">(" << ex(*s.value) << ");\n";
  });
  os << "  }\n";
  os << "  __device__ __forceinline__ void operator()(" << coordParams()
     << ", float v0__, float v1__) const {\n    apply(" << coordArgs("col__") << ", v0__);\n"
     << "    if (col__ + 1 < N__) apply(" << coordArgs("col__ + 1") << ", v1__);\n  }\n";
  if (p_.aPrologue) {
    // The A prologue (gemm_tiles.cuh): F of one element of A, which the template
    // rounds to A's type; so F's own final cast to that type is left out (the same
    // rounding, done once).
    const Expr* f0 = p_.aPrologue.get();
    if (f0->kind == ExprKind::Cast && f0->type && f0->operands.size() == 1 &&
        f0->type->elem == ElemType::ofParam(p_.a))
      f0 = f0->operands[0].get();
    // F of one element: A's load is `a_elem__`, the staged tensor's (when `staged`) is
    // `y_elem__`. A vector along A's rows, s[tm]: rows past M (the tile's padding, whose
    // results no one stores; an A row meets only its own output row) read row M - 1, so
    // the load needs no branch and one row's loads are one. A vector along K, s[tk],
    // reads at k, which the template keeps below K; a tensor at A's own subscripts,
    // y[tm, tk], not staged, at both (one element per A element, from L1/L2).
    auto element = [&](bool stagedY) {
      return cudaElement(*f0, k_, [&](const Expr& x, const auto& op) -> std::optional<std::string> {
        if (x.kind == ExprKind::Load && x.param == p_.a) // A's element, in its compute type
          return std::string("a_elem__");
        if (x.kind == ExprKind::Load && stagedY && x.param == p_.aStaged)
          return std::string("y_elem__");
        if (x.kind == ExprKind::Load)
          return "hd::to_compute(" + name(x.param) + "[" +
                 offset(x.param, x.indices, "(row__ < M__ ? row__ : M__ - 1)") + "])";
        if (x.kind == ExprKind::Full) // a constant tile
          return ctype(x.type->elem) + "(" + op(*x.operands[0]) + ")";
        if (x.kind == ExprKind::TileIndex) // A's K or row tile: the element's k or row
          return std::string(x.tile == p_.tileK ? "k__" : "row__");
        return std::nullopt;
      });
    };
    os << "  static constexpr bool kPrologueA = true;\n";
    os << "  __device__ __forceinline__ float prologue_a(int64 row__, int64 k__, "
          "float a_elem__) "
          "const {\n"
          "    return float("
       << element(false) << ");\n  }\n";
    if (staged()) // the sm90 kernel's staged form (gemm_tiles.cuh, prologue_fragment_staged)
      os << "  __device__ __forceinline__ float prologue_ay(int64 row__, int64 k__, "
            "float a_elem__, float y_elem__) const {\n    return float("
         << element(true) << ");\n  }\n";
  }
  if (p_.kScaled) {
    // A product scaled per K block (gemm_tiles.cuh, has_kscale): the factors of block kb
    // at a row and a column of C (the kernels read rows and columns past M and N at M - 1
    // and N - 1, and only blocks below K).
    os << "  static constexpr bool kKScale = true;\n";
    os << "  static constexpr int kKScaleBlock = " << p_.gemm.kScaleBlock << ";\n";
    os << "  static constexpr int kKScaleColBlock = " << (p_.kScaleColPerTile ? p_.gemm.bn : 1)
       << ";\n";
    os << "  __device__ __forceinline__ float kscale_row(int64 row__, int64 kb__) const {\n"
       << "    return float(" << (p_.kScaleRow ? kScaleEx(*p_.kScaleRow) : "1.f") << ");\n  }\n";
    os << "  __device__ __forceinline__ float kscale_col(int64 col__, int64 kb__) const {\n"
       << "    return float(" << (p_.kScaleCol ? kScaleEx(*p_.kScaleCol) : "1.f") << ");\n  }\n";
  }
  if (p_.tmaStoreParam >= 0) {
    os << "  __device__ __forceinline__ float transform(" << coordParams()
       << ", float acc__) const {\n";
    body(
        os, [&](const Stmt& s) { os << "    return float(" << ex(*s.value, true) << ");\n"; },
        true);
    os << "  }\n";
  }
  os << "};\n\n";
}

std::string MatmulEmitter::epilogueInit() const {
  std::string init =
      "  " + k_.name + "_epilogue<" + templateNames() + ", TMA_STORE> epi__{M__, N__";
  for (const KernelArg& a : out_.args) {
    const std::string& p = name(a.param);
    switch (a.kind) {
    case KernelArg::Kind::Pointer: init += ", " + p; break;
    case KernelArg::Kind::Size: init += ", " + genSize(p, a.dim); break;
    case KernelArg::Kind::Stride: init += ", " + genStride(p, a.dim); break;
    case KernelArg::Kind::Scalar: init += ", " + p; break;
    default: break;
    }
  }
  return init + "};\n";
}

std::string MatmulEmitter::argList() const {
  std::string s;
  for (const std::string& f : fields_)
    s += ", " + f;
  return s;
}

} // namespace helion::codegen::matmul
