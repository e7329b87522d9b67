#pragma once
// JSON for scenario files, the CLI's --json output and the replicas' bodies:
// nlohmann::ordered_json (Debian's nlohmann-json3-dev), so objects keep their
// keys in insertion order and output is stable. Two additions in RateLab's
// style: parsing returns a Result (errors as values, naming line and column,
// nesting bounded), and dumping never throws on bytes that are not UTF-8.

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace rl {

/// A JSON value; objects keep insertion order.
using Json = nlohmann::ordered_json;

/// Deepest nesting parseJson accepts (arrays and objects).
inline constexpr int kJsonMaxDepth = 64;

/// Parses one whole document. The error names the line and column, and says
/// what was expected; nesting deeper than kJsonMaxDepth is refused.
Result<Json> parseJson(std::string_view text);

/// Serialises; indent < 0 = compact on one line. Invalid UTF-8 in strings is
/// replaced by U+FFFD, so the output is always valid UTF-8.
std::string dumpJson(const Json& value, int indent = -1);

}  // namespace rl
