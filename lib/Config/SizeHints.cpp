//===- SizeHints.cpp - Size hints from the sizes a kernel runs at ----------===//
//
// Block size hints are IR expressions over the kernel's parameters (`%m`,
// `x.size(1)`, `%end - %begin`); the tuner and `helionc spec --args` know the
// tensor sizes and scalar values, so the hints are evaluated here.
//===----------------------------------------------------------------------===//
#include "helion/Config/ConfigSpec.h"

#include <algorithm>

namespace helion::config {
namespace {

class HintEvaluator {
public:
  HintEvaluator(const ir::Kernel& k, const std::map<std::string, std::vector<int64_t>>& tensors,
                const std::map<std::string, int64_t>& scalars)
      : k_(k), tensors_(tensors), scalars_(scalars) {}

  std::optional<int64_t> tensorSize(int param, int dim) const {
    if (param < 0 || param >= static_cast<int>(k_.params.size()))
      return std::nullopt;
    auto it = tensors_.find(k_.params[param].name);
    if (it == tensors_.end() || dim < 0 || dim >= static_cast<int>(it->second.size()))
      return std::nullopt;
    return it->second[dim];
  }

  std::optional<int64_t> eval(const ir::ExprRef& e) const {
    if (!e)
      return std::nullopt;
    switch (e->kind) {
    case ir::ExprKind::Const:
      return static_cast<int64_t>(e->value);
    case ir::ExprKind::Param: {
      if (e->param < 0 || e->param >= static_cast<int>(k_.params.size()))
        return std::nullopt;
      auto it = scalars_.find(k_.params[e->param].name);
      return it == scalars_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    case ir::ExprKind::TensorSize:
      return tensorSize(e->param, e->dim);
    case ir::ExprKind::Cast:
      return e->operands.empty() ? std::nullopt : eval(e->operands[0]);
    case ir::ExprKind::Binary:
      return binary(e);
    default:
      return std::nullopt;
    }
  }

private:
  const ir::Kernel& k_;
  const std::map<std::string, std::vector<int64_t>>& tensors_;
  const std::map<std::string, int64_t>& scalars_;

  std::optional<int64_t> binary(const ir::ExprRef& e) const {
    if (e->operands.size() != 2)
      return std::nullopt;
    auto a = eval(e->operands[0]), b = eval(e->operands[1]);
    if (!a || !b)
      return std::nullopt;
    switch (e->binary) {
    case ir::BinaryOp::Add: return *a + *b;
    case ir::BinaryOp::Sub: return *a - *b;
    case ir::BinaryOp::Mul: return *a * *b;
    case ir::BinaryOp::Div: return *b == 0 ? std::nullopt : std::optional<int64_t>(*a / *b);
    case ir::BinaryOp::Maximum: return std::max(*a, *b);
    case ir::BinaryOp::Minimum: return std::min(*a, *b);
    default: return std::nullopt;
    }
  }
};

} // namespace

SizeHints sizeHintsFor(const ir::Kernel& kernel,
                       const std::map<std::string, std::vector<int64_t>>& tensorSizes,
                       const std::map<std::string, int64_t>& scalars) {
  HintEvaluator eval(kernel, tensorSizes, scalars);
  SizeHints hints;
  for (const ir::BlockSizeDecl& bs : kernel.blockSizes)
    if (auto v = eval.eval(bs.sizeHint); v && *v >= 1)
      hints.blockSizes[bs.id] = *v;
  for (const ir::Axis& axis : kernel.axes) {
    std::optional<int64_t> v = eval.tensorSize(axis.param, axis.dim);
    if (!v)
      v = eval.eval(axis.extent);
    if (v && *v >= 1)
      hints.axes[axis.id] = *v;
  }
  return hints;
}

} // namespace helion::config
