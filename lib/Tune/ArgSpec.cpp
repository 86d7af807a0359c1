//===- ArgSpec.cpp - Parsing `--args` --------------------------------------===//
//
// Syntax only; bindArgs() (BindArgs.cpp) checks the values against a kernel.
//===----------------------------------------------------------------------===//
#include "helion/Tune/ArgSpec.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace helion::tune {
namespace {

constexpr const char *kTensorExample = "a dtype and sizes like bf16[8192,8192]";

std::string error(const std::string &name, const std::string &rule) {
  return fmt::format("--args: '{}': {}", name, rule);
}

/// Splits on whitespace outside brackets: "x=bf16[8, 8] n=2" -> {"x=bf16[8, 8]", "n=2"}.
std::vector<std::string> tokens(const std::string &text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) && depth == 0) {
      if (!current.empty())
        out.push_back(std::move(current));
      current.clear();
      continue;
    }
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    current += c;
  }
  if (!current.empty())
    out.push_back(std::move(current));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

/// The whole of `s` as an int64; nullopt when it is not an integer literal.
/// `overflow` is set when it is one but does not fit.
std::optional<int64_t> parseInt(const std::string &s, bool &overflow) {
  const char *begin = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
  const char *end = s.data() + s.size();
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  overflow = ec == std::errc::result_out_of_range && ptr == end;
  if (ec != std::errc() || ptr != end || begin == end)
    return std::nullopt;
  return v;
}

/// `bf16[8192, 8192]`, `f32[]`; the errors name `name`.
std::optional<TensorArg> parseTensor(const std::string &name, const std::string &value,
                                     std::vector<std::string> &errors) {
  auto bad = [&] {
    errors.push_back(error(name, fmt::format("expected {}, got '{}'", kTensorExample, value)));
    return std::nullopt;
  };
  size_t open = value.find('[');
  if (open == std::string::npos || value.back() != ']' ||
      value.find('[', open + 1) != std::string::npos)
    return bad();
  std::string dtype = value.substr(0, open);
  auto type = ir::parseScalarType(dtype);
  if (!type) {
    errors.push_back(error(name, fmt::format("unknown dtype '{}' in '{}' (expected {})", dtype,
                                             value, ir::scalarTypeNames())));
    return std::nullopt;
  }
  TensorArg t{*type, {}, std::nullopt};
  std::string inner = trim(std::string_view(value).substr(open + 1, value.size() - open - 2));
  if (inner.empty())
    return t; // 0-d
  size_t start = 0;
  int64_t numel = 1;
  while (true) {
    size_t comma = inner.find(',', start);
    std::string part = trim(std::string_view(inner).substr(start, comma - start));
    bool overflow = false;
    std::optional<int64_t> size = parseInt(part, overflow);
    if (overflow) {
      errors.push_back(
          error(name, fmt::format("size {} of '{}' does not fit in 64 bits", part, value)));
      return std::nullopt;
    }
    if (!size)
      return bad();
    if (*size < 0) {
      errors.push_back(
          error(name, fmt::format("expected sizes >= 0, got {} in '{}'", *size, value)));
      return std::nullopt;
    }
    if (*size != 0 && numel > std::numeric_limits<int64_t>::max() / *size) {
      errors.push_back(error(name, fmt::format("'{}' has more than 2^63 - 1 elements", value)));
      return std::nullopt;
    }
    numel *= *size;
    t.sizes.push_back(*size);
    if (comma == std::string::npos)
      return t;
    start = comma + 1;
  }
}

std::optional<ScalarArg> parseScalar(const std::string &value) {
  if (value == "true" || value == "false")
    return ScalarArg(value == "true");
  bool overflow = false;
  if (auto i = parseInt(value, overflow))
    return ScalarArg(*i);
  const char *begin = value.data() + (value.size() > 1 && value[0] == '+' ? 1 : 0);
  const char *end = value.data() + value.size();
  double d = 0;
  auto [ptr, ec] = std::from_chars(begin, end, d);
  // Too large for int64 but a fine number: `n=1e30` or an overflowing integer is a double.
  if (ec != std::errc() || ptr != end || !std::isfinite(d))
    return std::nullopt;
  return ScalarArg(d);
}

/// Looks like the start of a tensor: a dtype-ish word, alone or followed by `[`.
bool looksLikeTensor(const std::string &value) {
  if (value.find('[') != std::string::npos || value.find(']') != std::string::npos)
    return true;
  return ir::parseScalarType(value).has_value();
}

/// `i64[9]:offsets(65536)`: a tensor with the offsets fill; the errors name `name`.
std::optional<TensorArg> parseOffsets(const std::string &name, const std::string &value,
                                      std::vector<std::string> &errors) {
  const size_t colon = value.rfind("]:");
  std::optional<TensorArg> t = parseTensor(name, value.substr(0, colon + 1), errors);
  if (!t)
    return std::nullopt;
  const std::string fill = value.substr(colon + 2);
  constexpr std::string_view kHead = "offsets(";
  bool overflow = false;
  std::optional<int64_t> total;
  if (fill.starts_with(kHead) && fill.back() == ')')
    total = parseInt(trim(fill.substr(kHead.size(), fill.size() - kHead.size() - 1)), overflow);
  if (!total || *total < 0) {
    errors.push_back(error(name, fmt::format("expected a fill like :offsets(65536) (a total "
                                             ">= 0) after the sizes, got ':{}'",
                                             fill)));
    return std::nullopt;
  }
  if ((t->dtype != ir::ScalarType::I64 && t->dtype != ir::ScalarType::I32) ||
      t->sizes.size() != 1 || t->sizes[0] < 1) {
    errors.push_back(error(name, fmt::format(":offsets fills a 1-D i32 or i64 tensor of at "
                                             "least one entry, got '{}'",
                                             value)));
    return std::nullopt;
  }
  if (t->dtype == ir::ScalarType::I32 && *total > std::numeric_limits<int32_t>::max()) {
    errors.push_back(error(name, fmt::format("offsets up to {} do not fit in i32", *total)));
    return std::nullopt;
  }
  t->offsetsTotal = total;
  return t;
}

} // namespace

std::string Arg::valueText() const {
  if (isTensor()) {
    std::string s = std::string(ir::scalarTypeName(tensor().dtype)) + "[";
    for (size_t i = 0; i < tensor().sizes.size(); ++i)
      s += (i ? "," : "") + std::to_string(tensor().sizes[i]);
    s += "]";
    if (tensor().offsetsTotal)
      s += ":offsets(" + std::to_string(*tensor().offsetsTotal) + ")";
    return s;
  }
  return std::visit(
      [](auto v) -> std::string {
        if constexpr (std::is_same_v<decltype(v), bool>)
          return v ? "true" : "false";
        else
          return fmt::format("{}", v);
      },
      scalar());
}

const Arg *ArgSpec::find(const std::string &name) const {
  for (const Arg &a : args)
    if (a.name == name)
      return &a;
  return nullptr;
}

config::Shapes ArgSpec::shapes() const {
  config::Shapes out;
  for (const Arg &a : args)
    if (a.isTensor())
      out[a.name] = a.tensor().sizes;
  return out;
}

nlohmann::json ArgSpec::shapeKey() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto &[name, sizes] : shapes())
    out[name] = sizes;
  return out;
}

nlohmann::json ArgSpec::dtypeKey() const {
  nlohmann::json out = nlohmann::json::object();
  for (const Arg &a : args)
    if (a.isTensor())
      out[a.name] = ir::scalarTypeName(a.tensor().dtype);
  return out;
}

std::string ArgSpec::label() const {
  std::string s;
  for (const Arg &a : args)
    s += (s.empty() ? "" : " ") + a.name + "=" + a.valueText();
  return s;
}

config::Parsed<ArgSpec> parseArgSpec(const std::vector<std::string> &texts) {
  config::Parsed<ArgSpec> out;
  ArgSpec spec;
  std::set<std::string> seen;
  for (const std::string &text : texts) {
    for (const std::string &token : tokens(text)) {
      size_t eq = token.find('=');
      if (eq == std::string::npos || eq == 0) {
        out.errors.push_back(fmt::format("--args: expected NAME=VALUE, got '{}'", token));
        continue;
      }
      std::string name = token.substr(0, eq), value = token.substr(eq + 1);
      if (!isIdentifier(name)) {
        out.errors.push_back(
            fmt::format("--args: '{}' is not a parameter name (in '{}')", name, token));
        continue;
      }
      if (!seen.insert(name).second) {
        out.errors.push_back(error(name, "given twice"));
        continue;
      }
      if (looksLikeTensor(value) && value.find("]:") != std::string::npos) {
        if (auto t = parseOffsets(name, value, out.errors))
          spec.args.push_back({name, *t});
        continue;
      }
      if (looksLikeTensor(value)) {
        if (auto t = parseTensor(name, value, out.errors))
          spec.args.push_back({name, *t});
        continue;
      }
      if (auto s = parseScalar(value)) {
        spec.args.push_back({name, *s});
        continue;
      }
      out.errors.push_back(error(name, fmt::format("expected {} or a scalar like 1e-5, 128 or "
                                                   "true, got '{}'",
                                                   kTensorExample, value)));
    }
  }
  if (spec.args.empty() && out.errors.empty())
    out.errors.push_back("--args: expected NAME=VALUE for every kernel parameter, got nothing");
  if (out.errors.empty())
    out.value = std::move(spec);
  return out;
}

} // namespace helion::tune
