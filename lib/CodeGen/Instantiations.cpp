//===- Instantiations.cpp - What a launcher can ask NVRTC for -------------===//
//
// (The dtype spec of `--dtype` and the signature of an instantiation are in
// DtypeSpec.cpp.)
//===----------------------------------------------------------------------===//
#include "helion/CodeGen/Instantiations.h"

#include "helion/IR/Printer.h"
#include "helion/IR/Visitor.h"
#include "helion/runtime/Layout.h"

#include <algorithm>
#include <functional>
#include <set>

namespace helion::codegen {
namespace {

using namespace ir;

/// 9 for "sm_90a", 12 for "sm_120", -1 when not sm_NN.
int archMajor(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0)
    return -1;
  std::string digits;
  for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i)
    digits += arch[i];
  return digits.size() >= 2 ? std::stoi(digits) / 10 : -1;
}

/// The head of the name (up to '<') the launcher picks on an `arch` device, or
/// nullopt when it rejects these dtypes there (MatmulLauncher.cpp, AttentionLauncher.cpp).
struct Head {
  std::string name;
  bool sm90 = false;
};
std::optional<Head> nameHead(const EmittedKernel& ek, const std::string& arch,
                             const std::vector<ScalarType>& sig) {
  const int major = archMajor(arch);
  if (const auto& mm = ek.matmul) {
    const ScalarType a = sig.at(mm->a), b = sig.at(mm->b);
    // 8-bit floats only K-major: B as [N, K] (MatmulLauncher.cpp rejects the rest).
    const bool supported = a == ScalarType::BF16 || a == ScalarType::F16 ||
                           a == ScalarType::F32 ||
                           (isFloat8(a) && mm->bTransposed && !mm->aPrologue);
    if (!supported || a != b || major < 8)
      return std::nullopt;
    if (mm->offsets >= 0 && sig.at(mm->offsets) != ScalarType::I32 &&
        sig.at(mm->offsets) != ScalarType::I64)
      return std::nullopt; // grouped GEMM: int32 or int64 offsets

    // f32 runs as tf32 on the sm80 kernel everywhere.
    const bool sm90 = mm->gemm.sm90 && major == 9 && a != ScalarType::F32;
    return Head{sm90 ? ek.kernelName : mm->sm80KernelName, sm90};
  }
  if (const auto& at = ek.attention) {
    const ScalarType q = sig.at(at->q);
    if ((q != ScalarType::BF16 && q != ScalarType::F16) || sig.at(at->k) != q ||
        sig.at(at->v) != q || major < 8)
      return std::nullopt;
    const bool sm90 = at->flash.sm90 && major == 9;
    return Head{sm90 ? ek.kernelName : at->sm80KernelName, sm90};
  }
  return Head{ek.kernelName, false};
}

/// The spellings each template argument can take for row extent `size`, in order.
/// A tile axis's EXACT predicate, (end - begin) % chunk == 0, as a comparable key: two
/// loops over the same extent in the same blocks (softmax_two_pass) share its value.
std::string exactKey(const Kernel* k, const ExactAxis& e, size_t bit) {
  if (!k || e.id < 0 || e.id >= static_cast<int>(k->tiles.size()))
    return "bit " + std::to_string(bit);
  const TileVar& tv = k->tiles[e.id];
  return printExpr(*k, *tv.begin) + " | " +
         (tv.flatOfParam >= 0 ? "numel " + std::to_string(tv.flatOfParam)
                              : printExpr(*k, *tv.end)) +
         " | " + std::to_string(e.chunk);
}

/// With `onlyDefault`, only the first of each (EXACT: 0), which defaultInstantiation names.
/// `k` (may be null) lets tile axes with one predicate share their EXACT bit.
std::vector<std::vector<std::string>> choices(const Kernel* k, const EmittedKernel& ek,
                                              const Head& head,
                                              const std::vector<ScalarType>& sig, int64_t size,
                                              const InstantiationHints& hints, bool onlyDefault) {
  std::optional<ScalarType> firstTensor; // the one helion::rt::vectorWidth sizes vectors by
  for (const TemplateArg& t : ek.templateArgs)
    if (t.kind == TemplateArg::Kind::DType && !firstTensor)
      firstTensor = sig.at(t.index);
  std::vector<std::vector<std::string>> out;
  for (const TemplateArg& t : ek.templateArgs) {
    std::vector<std::string> values;
    switch (t.kind) {
    case TemplateArg::Kind::DType: values = {deviceTypeName(sig.at(t.index))}; break;
    case TemplateArg::Kind::ReductionDim:
      values = {std::to_string(rt::reductionExtent(size, ek.numThreads))};
      break;
    case TemplateArg::Kind::VectorWidth: {
      const int bytes = scalarTypeBytes(firstTensor.value_or(ScalarType::F32));
      for (int vec = std::max(1, ek.maxVectorBytes / bytes); vec >= 1; vec /= 2)
        values.push_back(std::to_string(vec));
      break;
    }
    case TemplateArg::Kind::Specialized:
      for (int64_t v : hints.specialized)
        values.push_back(std::to_string(v));
      break;
    case TemplateArg::Kind::EpilogueForm:
      values = {head.sm90 && ek.matmul && ek.matmul->tmaStoreParam >= 0 ? "1" : "0"};
      if (values[0] == "1")
        values.push_back("0"); // an output TMA cannot store through takes the pairs epilogue
      break;
    case TemplateArg::Kind::ExactAxes: {
      // Reduction axes: known from the extent; tile axes: either way, the same way for
      // tile axes of one predicate.
      std::vector<int64_t> masks = {0};
      std::map<std::string, int64_t> firstBit; // tile predicate -> its first bit
      for (size_t i = 0; i < ek.exactAxes.size(); ++i) {
        const ExactAxis& e = ek.exactAxes[i];
        const int64_t bit = int64_t(1) << i;
        std::vector<int64_t> next;
        auto [same, fresh] = e.isTile ? firstBit.emplace(exactKey(k, e, i), bit)
                                      : std::make_pair(firstBit.end(), false);
        for (int64_t m : masks) {
          if (e.isTile && !fresh) {
            next.push_back(m & same->second ? m | bit : m);
          } else if (e.isTile) {
            next.push_back(m);
            next.push_back(m | bit);
          } else {
            const bool exact = e.chunk > 0 ? size % e.chunk == 0
                                           : size == rt::reductionExtent(size, ek.numThreads);
            next.push_back(exact ? m | bit : m);
          }
        }
        masks = std::move(next);
      }
      for (int64_t m : masks)
        values.push_back(std::to_string(m));
      break;
    }
    }
    if (onlyDefault && !values.empty()) // EXACT 0: every bounds check kept
      values = {t.kind == TemplateArg::Kind::ExactAxes ? "0" : values.front()};
    out.push_back(std::move(values));
  }
  return out;
}

/// Every `head<a, b, ...>` of the product of `values`, appended to `out` unless seen.
void product(const std::string& head, const std::vector<std::vector<std::string>>& values,
             std::vector<std::string>& out, std::set<std::string>& seen) {
  std::function<void(size_t, std::string)> walk = [&](size_t i, std::string name) {
    if (i == values.size()) {
      name += ">";
      if (seen.insert(name).second)
        out.push_back(std::move(name));
      return;
    }
    for (const std::string& v : values[i])
      walk(i + 1, name + (i ? ", " : "") + v);
  };
  walk(0, head + "<");
}

} // namespace

bool readsSizes(const EmittedKernel& ek) {
  for (const TemplateArg& t : ek.templateArgs)
    if (t.kind == TemplateArg::Kind::ReductionDim)
      return true;
  return std::any_of(ek.exactAxes.begin(), ek.exactAxes.end(),
                     [](const ExactAxis& e) { return !e.isTile; });
}

bool readsSpecialized(const EmittedKernel& ek) {
  return std::any_of(ek.templateArgs.begin(), ek.templateArgs.end(), [](const TemplateArg& t) {
    return t.kind == TemplateArg::Kind::Specialized;
  });
}

bool takesLongRows(const EmittedKernel& ek, int64_t size) {
  if (!ek.longRows)
    return false;
  int64_t elems = 0;
  for (const TemplateArg& t : ek.templateArgs)
    if (t.kind == TemplateArg::Kind::ReductionDim)
      elems += rt::reductionExtent(size, ek.numThreads);
  int64_t rows = 1;
  for (const GridLoop& g : ek.loops)
    for (int64_t b : g.blockSizes)
      rows *= b;
  return elems * rows > int64_t(kLongRowElems) * ek.numThreads;
}

std::vector<std::string> instantiations(const Kernel& k, const EmittedKernel& ek,
                                        const std::string& arch,
                                        const std::vector<ScalarType>& signature,
                                        const InstantiationHints& hints) {
  std::optional<Head> head = nameHead(ek, arch, signature);
  if (!head)
    return {};
  std::vector<std::string> out;
  std::set<std::string> seen;
  // Without a reduction axis the extent changes nothing: one pass.
  const std::vector<int64_t> sizes =
      readsSizes(ek) ? hints.sizes : std::vector<int64_t>{hints.sizes.front()};
  for (int64_t size : sizes)
    if (!takesLongRows(ek, size))
      product(head->name, choices(&k, ek, *head, signature, size, hints, false), out, seen);
  // A grouped GEMM's row-fitting kernel, which the launcher may run instead on sm90 with
  // 16-bit A, B and output of one dtype (MatmulLauncher.cpp; TMA_STORE = 1 only).
  if (const auto& mm = ek.matmul; mm && head->sm90 && !mm->rowsKernelName.empty()) {
    const ScalarType a = signature.at(mm->a);
    if ((a == ScalarType::BF16 || a == ScalarType::F16) && mm->tmaStoreParam >= 0 &&
        signature.at(mm->tmaStoreParam) == a) {
      std::vector<std::vector<std::string>> values =
          choices(&k, ek, *head, signature, sizes.front(), hints, false);
      for (size_t i = 0; i < ek.templateArgs.size(); ++i)
        if (ek.templateArgs[i].kind == TemplateArg::Kind::EpilogueForm)
          values[i] = {"1"};
      product(mm->rowsKernelName, values, out, seen);
    }
  }
  return out;
}

std::string defaultInstantiation(const EmittedKernel& ek, const std::string& arch,
                                 const std::vector<ScalarType>& signature,
                                 const InstantiationHints& hints) {
  Head head;
  if (std::optional<Head> picked = nameHead(ek, arch, signature)) {
    head = *picked;
  } else { // a signature the launcher rejects still names a kernel (which may not compile)
    const bool sm90 = archMajor(arch) == 9;
    head.sm90 = ek.matmul && ek.matmul->gemm.sm90 && sm90;
    head.name = ek.matmul ? (head.sm90 ? ek.kernelName : ek.matmul->sm80KernelName)
                : ek.attention && ek.attention->flash.sm90 && !sm90 ? ek.attention->sm80KernelName
                                                              : ek.kernelName;
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  product(head.name, choices(nullptr, ek, head, signature, hints.sizes.front(), hints, true), out,
          seen);
  return out.front();
}

std::vector<std::string> chainInstantiations(const EmittedKernel& chain, const std::string& arch,
                                             const std::vector<ScalarType>& signature,
                                             const InstantiationHints& hints) {
  if (!chain.chainLaunch || archMajor(arch) != 9)
    return {};
  const ChainLaunch& c = *chain.chainLaunch;
  const ScalarType t = signature.at(c.a);
  const ScalarType cast = c.castParam >= 0 ? signature.at(c.castParam) : c.castType;
  if ((t != ScalarType::BF16 && t != ScalarType::F16) || signature.at(c.b1) != t ||
      signature.at(c.b2) != t || cast != t)
    return {};
  // The dtypes and specialized values as defaultInstantiation names them, then DK, DV.
  std::string head = defaultInstantiation(chain, arch, signature, hints);
  head.pop_back(); // '>'
  std::vector<std::string> out;
  for (int i = 2; i >= 0; --i)
    for (int j = 2; j >= 0; --j)
      if (c.params.stages[i][j] > 0)
        out.push_back(head + ", " + std::to_string(64 << i) + ", " + std::to_string(64 << j) + ">");
  return out;
}

} // namespace helion::codegen
