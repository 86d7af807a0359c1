//===- helion/Tune/ArgSpec.h - Kernel arguments to tune for -----*- C++ -*-===//
//
// `helionc tune --args SPEC` names a value for every kernel parameter: tensors by
// dtype and sizes, scalars by value:
//
//   x=bf16[8192,8192] w=f32[8192] eps=1e-5 n=128 causal=true s=f32[]
//
// Tensors are filled with seeded random values; a 1-D integer tensor may instead be
// `offsets=i64[9]:offsets(65536)`: rising from 0 to 65536 in 8 segments of random
// lengths, the row offsets of a jagged or grouped kernel.
//
// Tokens are separated by whitespace (not inside brackets: `x=bf16[8192, 8192]` is one
// token). Dtypes are the language's: f16 bf16 f32 f64 i8 i32 i64 b8; sizes are integers
// >= 0 (`[]` is a 0-d tensor). A scalar is `true`/`false`, an integer, or a finite
// floating-point number. Errors name the parameter:
//
//   --args: 'x': expected a dtype and sizes like bf16[8192,8192], got 'bf16[8192,'
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Config/ConfigJson.h"
#include "helion/IR/IR.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace helion::tune {

struct TensorArg {
  ir::ScalarType dtype = ir::ScalarType::F32;
  std::vector<int64_t> sizes;
  /// `:offsets(T)`: sorted from 0 to T (sizes[0] - 1 segments), not random values.
  std::optional<int64_t> offsetsTotal;
  bool operator==(const TensorArg &) const = default;
};

using ScalarArg = std::variant<bool, int64_t, double>;

struct Arg {
  std::string name;
  std::variant<TensorArg, ScalarArg> value;

  bool isTensor() const { return std::holds_alternative<TensorArg>(value); }
  const TensorArg &tensor() const { return std::get<TensorArg>(value); }
  const ScalarArg &scalar() const { return std::get<ScalarArg>(value); }
  /// The value as written canonically: `bf16[8192,8192]`, `128`, `1e-05`, `true`.
  std::string valueText() const;
  bool operator==(const Arg &) const = default;
};

/// The arguments of one shape to tune for.
struct ArgSpec {
  std::vector<Arg> args; ///< in the order given; bindArgs() puts them in parameter order

  const Arg *find(const std::string &name) const;
  /// Tensor name -> sizes (scalars left out), as config files key their entries.
  config::Shapes shapes() const;
  /// shapes() as the JSON of a config file's `shapes`: `{"x": [8192, 8192]}`.
  nlohmann::json shapeKey() const;
  /// The tensors' dtypes as the JSON of a config file's `dtypes`: `{"x": "bf16"}`.
  nlohmann::json dtypeKey() const;
  /// Every argument, space-separated: `x=bf16[8192,8192] eps=1e-05`. After bindArgs() it
  /// is canonical (parameter order, scalars converted to the parameter's type), so it
  /// serves as the dtypes-and-shapes part of a cache key.
  std::string label() const;
};

/// Parses the text of one or more `--args` options that together describe one shape
/// (each string may hold several tokens). Checks the syntax only: every token is
/// NAME=VALUE, no name twice, dtypes known, sizes >= 0 and within int64 (and so is
/// their product). Errors: every problem, in token order, `--args: ...`.
config::Parsed<ArgSpec> parseArgSpec(const std::vector<std::string> &texts);

/// Checks `given` against the kernel's parameters and returns it in parameter order:
/// every parameter the caller passes (captured host locals are computed by the host
/// code and must not be given) exactly once, tensors for tensors with the known rank,
/// scalars of the parameter's type (an integer for a float parameter becomes a double;
/// b8 takes true/false; integer types take integers in range). Unknown names are
/// errors with a suggestion (`did you mean 'x'?`).
config::Parsed<ArgSpec> bindArgs(const ArgSpec &given, const ir::Kernel &kernel);

/// Suggestions for misspelt names: the config reader's (config::nearestName).
using config::nearestName;

} // namespace helion::tune
