#pragma once
// The options object of a JavaScript limiter, as written in code:
// `rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 })` or bare
// `points: 10, duration: 1`. Top-level `key: value` pairs only; nested
// objects, arrays, functions and strings are kept as their text.
// Internal to core/dialects.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rl::dialect {

/// One `key: value` of the object, in order; `value` is trimmed text.
struct JsOption {
  std::string key;    ///< unquoted
  std::string value;  ///< as written ("15 * 60 * 1000", "'draft-8'", "(req) => ...")
};

/// The options of the first `{ ... }` in `text` (or of all of `text` when it has
/// no braces); the error names the part that is not `key: value`.
Result<std::vector<JsOption>> jsOptions(std::string_view dialect, std::string_view text);

/// Text before the object's `{`: the call or class ("rateLimit(", "new RateLimiterRedis(").
std::string jsCallee(std::string_view text);

}  // namespace rl::dialect
