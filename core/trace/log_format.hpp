#pragma once
// A compiled nginx log_format: literals and $variables, matched against a log
// line without regex. Each variable's value runs up to the next literal (the
// last one to the end of the line), so the format is compiled once and a line
// costs a few memchr-speed searches. "combined" and "common" are such formats.
//
// Values that nginx writes in a fixed shape are checked: $status (3 digits),
// $body_bytes_sent / $bytes_sent (digits or "-"), so a "combined" line is
// not mistaken for "common" and vice versa.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rl {

/// nginx's predefined "combined" format (Apache's combined reads the same).
inline constexpr std::string_view kCombinedLogFormat =
    "$remote_addr $ident $remote_user [$time_local] \"$request\" $status $body_bytes_sent "
    "\"$http_referer\" \"$http_user_agent\"";
/// The "common" format: combined without referer and user agent.
inline constexpr std::string_view kCommonLogFormat =
    "$remote_addr $ident $remote_user [$time_local] \"$request\" $status $body_bytes_sent";

/// A compiled log_format; see the file comment.
class LogFormat {
 public:
  /// Most variables a format may hold.
  static constexpr std::size_t kMaxVariables = 48;
  /// The values of one matched line, by variable index.
  using Values = std::array<std::string_view, kMaxVariables>;

  /// Compiles `format`; the error says what is wrong (e.g. two variables with nothing between).
  static Result<LogFormat> compile(std::string_view format);

  /// Index of variable `name` (without $), or -1.
  int indexOf(std::string_view name) const;
  /// Number of variables.
  std::size_t size() const { return vars_.size(); }
  /// Matches `line`; fills `out` and returns true, or returns false (a bad line).
  bool match(std::string_view line, Values& out) const;

 private:
  /// How a variable's value is checked.
  enum class Check : std::uint8_t { None, Status, Bytes };
  struct Var {
    std::string name;      ///< without $
    std::string after;     ///< literal that follows it ("" = end of line)
    Check check = Check::None;  ///< shape check
  };
  std::string lead_;       ///< literal before the first variable
  std::vector<Var> vars_;  ///< in order
};

}  // namespace rl
