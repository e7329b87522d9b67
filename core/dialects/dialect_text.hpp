#pragma once
// The small text pieces every dialect parser shares: trimming, splitting,
// numbers, "name: value" pairs and the error line. Internal to core/dialects.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "limiter/time.hpp"

namespace rl::dialect {

/// `text` without leading and trailing whitespace.
std::string_view trim(std::string_view text);
/// Lower-case ASCII copy.
std::string lower(std::string_view text);
/// Splits on `sep`, trims each part, drops empty parts.
std::vector<std::string_view> split(std::string_view text, char sep);
/// Splits on any whitespace.
std::vector<std::string_view> words(std::string_view text);
/// The one error line: "<dialect>: '<token>': expected <what>".
Error tokenError(std::string_view dialect, std::string_view token, std::string_view expected);
/// A whole non-negative integer, or nullopt ("10", "1_000" with underscores).
std::optional<std::int64_t> wholeNumber(std::string_view text);
/// A finite non-negative decimal ("0.5", "10"), or nullopt.
std::optional<double> decimalNumber(std::string_view text);
/// A product of whole numbers ("15 * 60 * 1000"), or nullopt (overflow past 10^15 too).
std::optional<std::int64_t> productOfNumbers(std::string_view text);
/// Strips one pair of matching quotes ('x', "x" or `x`).
std::string_view unquote(std::string_view text);
/// A window in whole milliseconds as the shortest exact phrase: "1 s", "250 ms", "2 min".
std::string windowPhrase(Micros window);

}  // namespace rl::dialect
