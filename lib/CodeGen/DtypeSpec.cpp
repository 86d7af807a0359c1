//===- DtypeSpec.cpp - `--dtype` per parameter -----------------------------===//
//
// The dtype spec of `helionc compile --dtype` (one dtype for every tensor, or
// `name=dtype,...` per parameter), its label in file names, the integer tensors
// that index others, and the dtype of each parameter for an instantiation
// (include/helion/CodeGen/Instantiations.h).
//===----------------------------------------------------------------------===//
#include "helion/CodeGen/Instantiations.h"

#include "helion/IR/Visitor.h"

#include <algorithm>

namespace helion::codegen {

using namespace ir;

std::optional<DtypeSpec> parseDtypeSpec(const std::string& text, std::string& error) {
  DtypeSpec spec;
  spec.text = text;
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = std::min(text.find(',', at), text.size());
    std::string part = text.substr(at, comma - at);
    at = comma + 1;
    size_t eq = part.find('=');
    std::string name = eq == std::string::npos ? "" : part.substr(0, eq);
    std::string type = eq == std::string::npos ? part : part.substr(eq + 1);
    std::optional<ScalarType> t = parseScalarType(type);
    if (!t) {
      error = "'" + type + "' is not a dtype (expected " + scalarTypeNames() + ")";
      return std::nullopt;
    }
    if (eq == std::string::npos) {
      if (spec.rest) {
        error = "two bare dtypes ('" + std::string(scalarTypeName(*spec.rest)) + "' and '" + type +
                "'); name the tensors: x=bf16,out=i8";
        return std::nullopt;
      }
      spec.rest = t;
    } else if (name.empty()) {
      error = "'" + part + "' names no tensor (expected NAME=DTYPE)";
      return std::nullopt;
    } else if (!spec.named.emplace(name, *t).second) {
      error = "tensor '" + name + "' is given twice";
      return std::nullopt;
    }
  }
  return spec;
}

std::string dtypeSpecLabel(const DtypeSpec& spec) {
  std::string out;
  if (spec.rest)
    out = scalarTypeName(*spec.rest);
  for (const auto& [name, type] : spec.named)
    out += (out.empty() ? "" : ".") + name + "-" + scalarTypeName(type);
  return out;
}

std::vector<bool> indexTensors(const Kernel& k) {
  std::vector<bool> isIndex(k.params.size(), false);
  std::map<int, int> varFromParam;
  // Every node under a subscript is an index expression: the tensors loaded there, and
  // those loaded into the variables used there, hold indices.
  auto markIndex = [&](const Expr& root) {
    walkExpr(root, [&](const Expr& e) {
      if (e.kind == ExprKind::Load)
        isIndex[e.param] = true;
      if (e.kind == ExprKind::Var && varFromParam.count(e.var))
        isIndex[varFromParam[e.var]] = true;
    });
  };
  auto markSubscripts = [&](const std::vector<Index>& ix) {
    for (const Index& i : ix)
      if (i.value)
        markIndex(*i.value);
  };
  walkStmts(k.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::Let && s.value->kind == ExprKind::Load)
      varFromParam[s.var] = s.value->param;
    markSubscripts(s.indices);
    forEachExprOf(s, [&](const Expr& root) {
      walkExpr(root, [&](const Expr& e) {
        if (e.kind == ExprKind::Load)
          markSubscripts(e.indices);
      });
    });
  });
  // Loop bounds are indices too: the offsets of a jagged loop (hl::tile(start, end)).
  for (const TileVar& t : k.tiles)
    for (const ExprRef& bound : {t.begin, t.end})
      if (bound)
        markIndex(*bound);
  return isIndex;
}

std::vector<ScalarType> signatureOf(const Kernel& k, const DtypeSpec& spec) {
  std::vector<bool> isIndex = indexTensors(k);
  std::vector<ScalarType> sig;
  for (size_t p = 0; p < k.params.size(); ++p) {
    const Param& param = k.params[p];
    if (param.kind != Param::Kind::Tensor) {
      sig.push_back(param.scalarType);
      continue;
    }
    auto named = spec.named.find(param.name);
    sig.push_back(named != spec.named.end() ? named->second
                  : isIndex[p]              ? ScalarType::I64
                                            : spec.rest.value_or(ScalarType::F32));
  }
  return sig;
}

} // namespace helion::codegen
