// helion::Error, HELION_CHECK and the small `{}` formatter behind both.
//
// hl.h must stay dependency-free (users include it with nothing else installed), so
// this formats with iostreams instead of libfmt; only `{}` placeholders and the
// `{{` / `}}` escapes are supported, which is all that error messages need.
#pragma once

#include <array>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace helion {

/// The one exception type of the host API and of ref mode. Every misuse that a user
/// can trigger (bad rank, bad index, bad dtype, shapes that do not broadcast) ends
/// here with a message that says what was expected and what was found.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Prints one formatter argument; ranges print as `[a, b, c]` so that sizes read well.
template <class T> void appendFormatted(std::ostream& os, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (value ? "true" : "false");
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(value);  // not as a character
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    os << std::string_view(value);
  } else if constexpr (requires { value.begin(); value.end(); }) {
    os << '[';
    bool first = true;
    for (const auto& element : value) {
      if (!first)
        os << ", ";
      first = false;
      appendFormatted(os, element);
    }
    os << ']';
  } else {
    os << value;
  }
}

template <class T> std::string toString(const T& value) {
  std::ostringstream os;
  appendFormatted(os, value);
  return os.str();
}

/// Substitutes `args` into the `{}` placeholders of `fmt`, left to right. Missing
/// arguments leave `{}` in place and extra ones are dropped: a wrong message is better
/// than a second error while reporting the first.
inline std::string formatStrings(std::string_view fmt, const std::string* args, size_t count) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}' && next < count) {
      out += args[next++];
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

/// `format("got {} of {}", 3, x.sizes())` -> "got 3 of [2, 4]".
template <class... Args> std::string format(std::string_view fmt, const Args&... args) {
  std::array<std::string, sizeof...(Args)> strings{toString(args)...};
  return formatStrings(fmt, strings.data(), strings.size());
}

/// Throws helion::Error with a formatted message.
template <class... Args> [[noreturn]] void fail(std::string_view fmt, const Args&... args) {
  throw Error(format(fmt, args...));
}

template <class... Args>
[[noreturn]] void failCheck(const char* condition, const char* file, int line,
                            std::string_view fmt, const Args&... args) {
  std::string_view path(file);
  if (size_t slash = path.find_last_of('/'); slash != std::string_view::npos)
    path.remove_prefix(slash + 1);
  throw Error(format(fmt, args...) + format(" (check `{}` failed at {}:{})", condition, path, line));
}

} // namespace detail
} // namespace helion

/// HELION_CHECK(cond, fmt, args...): host-side check; throws helion::Error with the
/// formatted message (`{}` placeholders) and the failed condition when `cond` is false.
#define HELION_CHECK(cond, ...)                                                            \
  do {                                                                                     \
    if (!(cond))                                                                           \
      ::helion::detail::failCheck(#cond, __FILE__, __LINE__, __VA_ARGS__);                 \
  } while (false)
