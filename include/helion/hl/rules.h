// Rules of the kernel language that ref mode and the compiler both enforce, each with
// its one predicate and its one message: ref mode (hl/memory.h) throws the message,
// helionc's infer-types pass reports it at the source location. A kernel is legal for
// one exactly when it is legal for the other.
#pragma once

#include "helion/hl/error.h"

#include <string>
#include <string_view>

namespace helion::rules {

/// Index blocks (gathers, `hl::load`/`hl::store` indices) hold integers: i8, i32, i64.
/// `dtype` is spelled as in the language (`f32`, `b8`, ...).
inline bool isIndexDtype(std::string_view dtype) {
  return dtype == "i8" || dtype == "i32" || dtype == "i64";
}
/// `what`: "subscript", "load" or "store".
inline std::string indexDtypeMessage(std::string_view what, std::string_view dtype) {
  return detail::format("{}: an index block must have an integer dtype, got {}", what, dtype);
}

/// `-b` of a bool block is not defined (as in PyTorch): `!b` negates a mask.
inline bool isNegatable(std::string_view dtype) { return dtype != "b8"; }
inline std::string negateBoolMessage() {
  return "negation (-) of a b8 block is not defined; use ! to negate a mask";
}

/// Bitwise operators (`& | ^ << >> ~`) take integer or bool blocks; floats are an error.
inline bool isBitwiseDtype(std::string_view dtype) {
  return dtype == "i8" || dtype == "i32" || dtype == "i64" || dtype == "b8" || dtype == "u8";
}
/// `op` as written (`&`, `<<`, ...); `dtype` the operands' common dtype.
inline std::string bitwiseMessage(std::string_view op, std::string_view dtype) {
  return detail::format("operator {} needs integer or bool operands, got {}", op, dtype);
}

/// The 8-bit floats hold values only: a block of them is cast (`.to(hl::f32)`) before
/// any arithmetic, comparison or reduction (PyTorch has no arithmetic on them either).
inline bool isFloat8Dtype(std::string_view dtype) { return dtype == "f8e4m3" || dtype == "f8e5m2"; }
/// `op` as written (`+`, `exp`, `sum`, ...).
inline std::string float8Message(std::string_view op, std::string_view dtype) {
  return detail::format("{} of a {} block: 8-bit floats hold values only, cast them first "
                        "(.to(hl::f32))",
                        op, dtype);
}

/// hl::atomic_add accumulates into f32, f64, f16, bf16, i32 and i64 tensors (what the
/// GPU's atomic add instructions take); i8 and b8 are an error.
inline bool isAtomicDtype(std::string_view dtype) {
  return dtype == "f32" || dtype == "f64" || dtype == "f16" || dtype == "bf16" || dtype == "i32" ||
         dtype == "i64";
}
inline std::string atomicDtypeMessage(std::string_view dtype) {
  return detail::format("atomic_add: a tensor of dtype {} cannot be accumulated into atomically "
                        "(expected f32, f64, f16, bf16, i32 or i64)", dtype);
}

} // namespace helion::rules
