#pragma once
// Log timestamps to integer microseconds since the epoch (UTC). Pure, no
// locale, no allocation: the formats nginx and Apache write, ISO 8601, and
// decimal seconds (nginx $msec) read exactly with integer arithmetic.

#include <cstdint>
#include <optional>
#include <string_view>

namespace rl {

/// The latest trace time accepted: 2^52 us (about the year 2112). Every later
/// sum (spreading, windows, retry times) stays far from int64 overflow.
inline constexpr std::int64_t kMaxTraceTimeUs = std::int64_t{1} << 52;

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12).
std::int64_t daysFromCivil(std::int64_t year, unsigned month, unsigned day);

/// "10/Oct/2000:13:55:36 -0700" ($time_local, Apache %t without brackets).
std::optional<std::int64_t> parseTimeLocal(std::string_view s);

/// A parsed ISO 8601 time and whether it carried a fraction of a second.
struct IsoTime {
  std::int64_t us = 0;      ///< microseconds since the epoch
  bool fraction = false;    ///< had ".ddd": finer than one second
};

/// "2000-10-10T13:55:36-07:00", "...Z", "...+0000", with optional ".ffffff"
/// (more than 6 digits are cut to microseconds). A space may replace the T.
std::optional<IsoTime> parseIso8601(std::string_view s);

/// Decimal seconds "1700000000.123" (up to 9 fraction digits, cut to
/// microseconds) scaled by `unitUs` (1'000'000 for seconds, 1000 for ms, 1 for
/// us; a fraction finer than 1 us is cut). Negative values and values past
/// kMaxTraceTimeUs are rejected (so the sum never wraps).
std::optional<std::int64_t> parseDecimalTime(std::string_view s, std::int64_t unitUs = 1'000'000);

}  // namespace rl
