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

} // namespace helion::rules
