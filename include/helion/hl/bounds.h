// Loop bounds that are device values: `hl::tile(begin, end)` and `hl::grid(begin, end)`
// where a bound was loaded inside the enclosing loop (jagged / varlen rows):
//
//   for (int64_t row : hl::grid(nrows)) {
//     auto start = offsets[row];                // a 0-d i64 block
//     for (auto tk : hl::tile(start, offsets[row + 1])) ...
//
// A bound is an integer C++ scalar or a 0-d integer block (one element, no dims); any
// other block is an error, since the loop would need one bound per element.
#pragma once

#include <concepts>
#include <type_traits>

#include "helion/hl/block.h"

namespace helion::detail {
template <class T>
concept DeviceBound = std::derived_from<std::remove_cvref_t<T>, hl::Block>;
template <class T>
concept LoopBound = DeviceBound<T> || std::integral<std::remove_cvref_t<T>>;

inline int64_t boundValue(const hl::Block& b, const char* what) {
  if (b.dim() != 0)
    fail("{}: a loop bound must be an integer scalar or a 0-d integer block, "
                         "got a block of shape {}", what, b.shape());
  if (is_floating(b.dtype()))
    fail("{}: a loop bound must have an integer dtype, got {}", what, b.dtype());
  return b.getInt(0);
}
template <std::integral I> int64_t boundValue(I v, const char*) { return static_cast<int64_t>(v); }
} // namespace helion::detail

namespace helion::hl {

/// `hl::tile(start, end)` with a bound that is a device value (a 0-d integer block).
template <helion::detail::LoopBound B, helion::detail::LoopBound E>
  requires(helion::detail::DeviceBound<B> || helion::detail::DeviceBound<E>)
TileRange tile(const B& begin, const E& end) {
  return tile(helion::detail::boundValue(begin, "hl::tile"), helion::detail::boundValue(end, "hl::tile"));
}
template <helion::detail::LoopBound B, helion::detail::LoopBound E>
  requires(helion::detail::DeviceBound<B> || helion::detail::DeviceBound<E>)
TileRange tile(const B& begin, const E& end, const BlockSize& size) {
  return tile(helion::detail::boundValue(begin, "hl::tile"), helion::detail::boundValue(end, "hl::tile"), size);
}
/// `hl::tile(end)` with a 0-d integer block as the end.
template <helion::detail::DeviceBound E> TileRange tile(const E& end) {
  return tile(helion::detail::boundValue(end, "hl::tile"));
}
template <helion::detail::DeviceBound E> TileRange tile(const E& end, const BlockSize& size) {
  return tile(helion::detail::boundValue(end, "hl::tile"), size);
}
/// `hl::grid(start, end)` / `hl::grid(end)` with device-value bounds.
template <helion::detail::LoopBound B, helion::detail::LoopBound E>
  requires(helion::detail::DeviceBound<B> || helion::detail::DeviceBound<E>)
GridRange grid(const B& begin, const E& end) {
  return grid(helion::detail::boundValue(begin, "hl::grid"), helion::detail::boundValue(end, "hl::grid"));
}
template <helion::detail::DeviceBound E> GridRange grid(const E& end) {
  return grid(helion::detail::boundValue(end, "hl::grid"));
}

} // namespace helion::hl
