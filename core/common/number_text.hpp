#pragma once
// A number from the whole of a text (flags, scenario values, schedules): the
// one place where "10", "2.5" or "1e3" becomes a value, and "10x", "", "nan"
// or "inf" do not; and the short text a number is written as in messages and
// labels ("2.5", "0.1", "1e+06").

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace rl {

/// Parses all of `t` into `out`; false (and `out` unspecified) for empty text,
/// trailing characters, overflow, or a floating-point value that is not finite.
template <class T>
bool parseWholeText(std::string_view t, T& out) {
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec != std::errc{} || p != t.data() + t.size()) return false;
  if constexpr (std::is_floating_point_v<T>) return std::isfinite(out);
  return true;
}

/// `v` in at most 6 significant digits, without trailing zeros (printf's %g): "2.5", "10", "0.001".
inline std::string numberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace rl
