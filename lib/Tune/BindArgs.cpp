//===- BindArgs.cpp - `--args` against a kernel's parameters ---------------===//
#include "helion/Tune/ArgSpec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

namespace helion::tune {
namespace {

std::string error(const std::string &name, const std::string &rule) {
  return fmt::format("--args: '{}': {}", name, rule);
}

bool isInteger(ir::ScalarType t) {
  return t == ir::ScalarType::I8 || t == ir::ScalarType::I32 || t == ir::ScalarType::I64;
}

std::pair<int64_t, int64_t> integerRange(ir::ScalarType t) {
  switch (t) {
  case ir::ScalarType::I8:
    return {INT8_MIN, INT8_MAX};
  case ir::ScalarType::I32:
    return {INT32_MIN, INT32_MAX};
  default:
    return {INT64_MIN, INT64_MAX};
  }
}

/// `given` converted to the type of scalar parameter `p`, or an error.
std::optional<ScalarArg> convertScalar(const ir::Param &p, const Arg &given,
                                       std::vector<std::string> &errors) {
  const ScalarArg &v = given.scalar();
  const char *type = ir::scalarTypeName(p.scalarType);
  auto mismatch = [&](const char *expected) {
    errors.push_back(error(p.name, fmt::format("expected {} (the parameter is {}), got '{}'",
                                               expected, type, given.valueText())));
    return std::nullopt;
  };
  if (p.scalarType == ir::ScalarType::B8) {
    if (!std::holds_alternative<bool>(v))
      return mismatch("true or false");
    return v;
  }
  if (isInteger(p.scalarType)) {
    if (!std::holds_alternative<int64_t>(v))
      return mismatch("an integer");
    auto [lo, hi] = integerRange(p.scalarType);
    int64_t i = std::get<int64_t>(v);
    if (i < lo || i > hi) {
      errors.push_back(
          error(p.name, fmt::format("{} is out of range for {} [{}, {}]", i, type, lo, hi)));
      return std::nullopt;
    }
    return v;
  }
  if (std::holds_alternative<bool>(v))
    return mismatch("a number");
  if (auto *i = std::get_if<int64_t>(&v))
    return ScalarArg(static_cast<double>(*i));
  return v;
}

} // namespace


config::Parsed<ArgSpec> bindArgs(const ArgSpec &given, const ir::Kernel &kernel) {
  config::Parsed<ArgSpec> out;
  ArgSpec bound;
  std::vector<std::string> params;
  for (const ir::Param &p : kernel.params)
    if (!p.captured)
      params.push_back(p.name);

  // Unknown names first, in the order given.
  for (const Arg &a : given.args) {
    auto it = std::find_if(kernel.params.begin(), kernel.params.end(),
                           [&](const ir::Param &p) { return p.name == a.name; });
    if (it != kernel.params.end() && it->captured) {
      out.errors.push_back(error(a.name, fmt::format("not a parameter of kernel '{}' (a host "
                                                     "variable the kernel reads; the host code "
                                                     "computes it)",
                                                     kernel.name)));
    } else if (it == kernel.params.end()) {
      std::string rule = fmt::format("not a parameter of kernel '{}'", kernel.name);
      if (auto near = nearestName(a.name, params))
        rule += fmt::format("; did you mean '{}'?", *near);
      out.errors.push_back(error(a.name, rule));
    }
  }
  for (const ir::Param &p : kernel.params) {
    if (p.captured)
      continue;
    const Arg *a = given.find(p.name);
    if (!a) {
      out.errors.push_back(error(p.name, fmt::format("missing (kernel '{}' takes {})", kernel.name,
                                                     fmt::join(params, ", "))));
      continue;
    }
    if (p.kind == ir::Param::Kind::Tensor) {
      if (!a->isTensor()) {
        out.errors.push_back(error(p.name, fmt::format("expected a dtype and sizes like "
                                                       "bf16[8192,8192] (a tensor), got '{}'",
                                                       a->valueText())));
        continue;
      }
      size_t rank = a->tensor().sizes.size();
      if (p.rank >= 0 && rank != static_cast<size_t>(p.rank)) {
        out.errors.push_back(error(p.name, fmt::format("expected {} sizes (the kernel uses a "
                                                       "rank-{} tensor), got {} in '{}'",
                                                       p.rank, p.rank, rank, a->valueText())));
        continue;
      }
      bound.args.push_back(*a);
      continue;
    }
    if (a->isTensor()) {
      out.errors.push_back(
          error(p.name, fmt::format("expected a scalar (the parameter is {}), "
                                    "got the tensor '{}'",
                                    ir::scalarTypeName(p.scalarType), a->valueText())));
      continue;
    }
    if (auto v = convertScalar(p, *a, out.errors))
      bound.args.push_back({p.name, *v});
  }
  if (out.errors.empty())
    out.value = std::move(bound);
  return out;
}

} // namespace helion::tune
