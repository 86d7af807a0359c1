//===- EmitAttentionFunctors.cpp - Flash attention's functors --------------===//
//
// The score functor (S with the q k^T product as x, its unmasked form for causal
// scores) and the epilogue functor (the statements after the key loop for one
// (b, row, col), the accumulators bound to o, l, m) of AttentionEmitter.h, printed
// from the IR (EmitAttention.cpp's header shows both).
//===----------------------------------------------------------------------===//
#include "AttentionEmitter.h"

#include "helion/IR/Visitor.h"

namespace helion::codegen::attention {

bool AttentionEmitter::alongHeadDim(const Expr& e) const {
  if ((e.kind == ExprKind::Var && e.var == p_.accVar) || e.kind == ExprKind::Dot ||
      (e.kind == ExprKind::TileIndex && e.tile != p_.tileM))
    return true;
  for (const ExprRef& o : e.operands)
    if (alongHeadDim(*o))
      return true;
  return false;
}

std::string AttentionEmitter::ex(const Expr& e) const {
  return cudaElement(e, k_, [&](const Expr& x, const auto& op) -> std::optional<std::string> {
    switch (x.kind) {
    case ExprKind::Dot: return std::string("x__");
    case ExprKind::TileIndex: return std::string(x.tile == p_.tileM ? "row__" : "col__");
    case ExprKind::Binary: {
      // A divisor the same along the head dim (li: one per row) is a broadcast
      // divisor, as in every other kernel: one reciprocal per row, then products.
      if (x.binary != BinaryOp::Div || !alongHeadDim(*x.operands[0]) ||
          alongHeadDim(*x.operands[1]))
        return std::nullopt;
      const std::string ct = ctype(x.type->elem);
      return "hd::div_bcast(" + ct + "(" + op(*x.operands[0]) + "), " + ct + "(" +
             op(*x.operands[1]) + "))";
    }
    default: return std::nullopt;
    }
  });
}

void AttentionEmitter::emitScore(std::ostringstream& os) {
  os << "/// s = score(q . k) of '" << k_.name << "'.\n";
  os << "template <" << sig_.params(k_) << ">\nstruct " << k_.name << "_score {\n"
     << score_.declarations();
  os << "  static constexpr bool kCausal = "
     << (p_.causal ? "true; // -inf wherever col > row: keys past the diagonal are not read\n"
                   : "false;\n");
  os << "  __device__ __forceinline__ float operator()(float x__, int64 row__, "
        "int64 col__) const {\n"
     << "    return float(" << ex(*p_.score) << ");\n  }\n";
  // A score dot * f (unmasked): the kernel may take the max of the raw products and
  // fold f into the exponent when f > 0 (AttentionMatch::scoreFactor).
  os << "  static constexpr bool kLinear = " << (p_.scoreFactor ? "true;\n" : "false;\n");
  if (p_.scoreFactor)
    os << "  __device__ __forceinline__ float factor() const { return float("
       << ex(*p_.scoreFactor) << "); }\n";
  if (p_.causal) // the score without its mask, for key blocks below the diagonal
    os << "  __device__ __forceinline__ float unmasked(float x__, int64 row__, "
          "int64 col__) const {\n"
       << "    return float(" << ex(*p_.score->operands[1]) << ");\n  }\n";
  os << "};\n\n";
}

std::string AttentionEmitter::offset(const Stmt& s) const {
  const std::string& n = name(s.param);
  return "b__ * " + genStride(n, 0) + " + row__ * " + genStride(n, 1) +
         (s.indices.size() == 3 ? " + col__ * " + genStride(n, 2) : "");
}

bool AttentionEmitter::isRowStore(const Stmt& s) {
  return s.kind == StmtKind::Store && s.indices.size() == 2;
}

void AttentionEmitter::body(std::ostringstream& os, const std::function<void(const Stmt&)>& store) const {
  os << "    float v" << p_.accVar << " = o__;\n    float v" << p_.sumVar << " = l__;\n    float v"
     << p_.maxVar << " = m__;\n";
  cudaEpilogueStmts(os, p_.epilogue, k_, [&](const Expr& e) { return ex(e); }, store);
}

void AttentionEmitter::storeLine(std::ostringstream& os, const Stmt& s) const {
  os << "    " << name(s.param) << "[" << offset(s) << "] = hd::from_compute<"
     << genType(name(s.param)) << ">(" << ex(*s.value) << ");\n";
}

void AttentionEmitter::emitEpilogue(std::ostringstream& os) {
  // The functors' own names end in "__" (reserved in C++): the fields, the kernel's
  // tensors and scalars as the source names them, are never shadowed by them.
  const char* args = "(int64 b__, int64 row__, int64 col__, float o__, float l__, "
                     "float m__) const {\n";
  const char* pairArgs = "(int64 b__, int64 row__, int64 col__, float o0__, float o1__, "
                         "float l__, float m__) const {\n";
  const std::string rowsCall =
      rowStores_ ? "    if (col__ == 0)\n      rows(b__, row__, l__, m__);\n" : "";
  os << "/// The epilogue of '" << k_.name << "' for one element: o = sum p v, l = sum p, "
        "m = max s.\n";
  os << "template <" << sig_.params(k_) << ">\nstruct " << k_.name << "_epilogue {\n"
     << epi_.declarations();
  if (stores_ == 1) {
    const Stmt* st = nullptr;
    for (const StmtRef& s : p_.epilogue)
      if (s->kind == StmtKind::Store && !isRowStore(*s))
        st = s.get();
    const std::string& n = name(st->param);
    const std::string t = genType(n), s0 = genStride(n, 0), s1 = genStride(n, 1),
                      s2 = genStride(n, 2);
    os << "  __device__ __forceinline__ float value" << args;
    body(os, [&](const Stmt& s) {
      if (&s == st)
        os << "    return float(" << ex(*s.value) << ");\n";
    });
    os << "  }\n";
    os << "  __device__ __forceinline__ void operator()" << pairArgs
       << "    " << t << " r0__ = hd::from_compute<" << t
       << ">(value(b__, row__, col__, o0__, l__, m__));\n"
       << "    " << t << " r1__ = hd::from_compute<" << t
       << ">(value(b__, row__, col__ + 1, o1__, l__, m__));\n"
       << "    " << t << "* ptr__ = " << n << " + (" << offset(*st) << ");\n"
       << "    if (" << s2 << " == 1 && reinterpret_cast<hd::uint64>(ptr__) %\n"
       << "        (2 * sizeof(" << t << ")) == 0) {\n"
       << "      hd::vec<" << t << ", 2> w__;\n      w__[0] = r0__;\n      w__[1] = r1__;\n"
       << "      *reinterpret_cast<hd::vec<" << t << ", 2>*>(ptr__) = w__;\n"
       << "    } else {\n      ptr__[0] = r0__;\n      ptr__[" << s2 << "] = r1__;\n    }\n"
       << rowsCall << "  }\n";
    // The sm90 kernel's fast path (AttentionSm90's epilogue): when every pair of
    // adjacent columns is one aligned 2-element store, a row's address once and its
    // pairs at constant offsets from it.
    os << "  static constexpr bool kRowPointers = true;\n"
       << "  static constexpr bool kRowStores = " << (rowStores_ ? "true" : "false") << ";\n"
       << "  __device__ __forceinline__ bool dense() const {\n"
       << "    return " << s2 << " == 1 && " << s1 << " % 2 == 0 && " << s0
       << " % 2 == 0 &&\n           reinterpret_cast<hd::uint64>(" << n
       << ") % (2 * sizeof(" << t << ")) == 0;\n  }\n"
       << "  __device__ __forceinline__ " << t
       << "* rowPtr(int64 b__, int64 row__) const {\n    return " << n << " + (b__ * " << s0
       << " + row__ * " << s1 << ");\n  }\n"
       << "  __device__ __forceinline__ void pair(" << t
       << "* ptr__, int64 b__, int64 row__, int64 col__, float o0__, float o1__, float l__, "
          "float m__) const {\n"
       << "    hd::vec<" << t << ", 2> w__;\n"
       << "    w__[0] = hd::from_compute<" << t
       << ">(value(b__, row__, col__, o0__, l__, m__));\n"
       << "    w__[1] = hd::from_compute<" << t
       << ">(value(b__, row__, col__ + 1, o1__, l__, m__));\n"
       << "    *reinterpret_cast<hd::vec<" << t << ", 2>*>(ptr__ + col__) = w__;\n"
       << rowsCall << "  }\n";
  } else {
    os << "  static constexpr bool kRowPointers = false;\n"
       << "  static constexpr bool kRowStores = " << (rowStores_ ? "true" : "false") << ";\n";
    os << "  __device__ __forceinline__ void apply" << args;
    body(os, [&](const Stmt& s) {
      if (!isRowStore(s))
        storeLine(os, s);
    });
    os << "  }\n";
    os << "  __device__ __forceinline__ void operator()" << pairArgs
       << (stores_ ? "    apply(b__, row__, col__, o0__, l__, m__);\n"
                     "    apply(b__, row__, col__ + 1, o1__, l__, m__);\n"
                   : "")
       << rowsCall << "  }\n";
  }
  if (rowStores_) {
    // Per-row results read l and m only (the plan checked): acc is bound to 0.
    os << "  __device__ __forceinline__ void rows(int64 b__, int64 row__, float l__, "
          "float m__) const {\n"
       << "    const float o__ = 0.f;\n";
    body(os, [&](const Stmt& s) {
      if (isRowStore(s))
        storeLine(os, s);
    });
    os << "  }\n";
  }
  os << "};\n\n";
}

} // namespace helion::codegen::attention
