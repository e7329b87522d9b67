// Counter keys: a string integer with an expiry, counted up per request.
//   rate-limiter-flexible RateLimiterRedis (verified with the npm package 5.x):
//     <keyPrefix>:<key>, keyPrefix "rlflx" by default; SET 0 EX <duration s> NX + INCRBY;
//     consumed points in the value, msBeforeNext = PTTL; block() writes points + 1 with
//     the block's expiry. BurstyRateLimiter, RateLimiterQueue and RLWrapperBlackAndWhite
//     store through RateLimiterRedis: same keys (a bursty limiter's second prefix too).
//   rate-limit-redis (express-rate-limit's store, verified with the npm package 4.x):
//     rl:<key>; INCR + PEXPIRE windowMs; hits in the value, reset = PTTL.
// Neither key holds its limit (points / max): KeyAssumptions::limit supplies it.
// Any other prefix:key integer is shown as this shape, library unnamed. A counter
// without a TTL is read too: it is the lockout readKey warns about.
#include <algorithm>

#include "redis/foreign_keys/key_reading.hpp"

namespace rl::detail {

std::optional<KeyReading> readCounterKey(const KeyInfo& key, const KeyAssumptions& assume) {
  if (key.type != "string" || key.pttlMs < -1) return std::nullopt;
  const auto count = wholeNumber(key.value);
  const auto colon = key.name.find(':');
  if (!count || *count < 0 || colon == std::string::npos || colon == 0) return std::nullopt;
  const std::string_view prefix = std::string_view(key.name).substr(0, colon);
  KeyReading r;
  r.algorithm = "fixed-window";
  r.used = *count;
  r.resetMs = std::max<std::int64_t>(0, key.pttlMs);
  r.limit = assume.limit;
  std::string what;
  if (prefix == "rl") {
    r.library = "rate-limit-redis";
    what = "express-rate-limit (rate-limit-redis) window: ";
  } else if (prefix.starts_with("rlflx")) {
    r.library = "rate-limiter-flexible";
    what = "rate-limiter-flexible counter: ";
  } else {
    r.library = "counter (rate-limiter-flexible shape)";
    what = "a counter (the shape of rate-limiter-flexible with keyPrefix '" + std::string(prefix) + "'): ";
  }
  r.words = what + std::to_string(*count) + (r.limit ? " of " + std::to_string(*r.limit) : std::string()) +
            " used, " + resetWords("", "resets", key.pttlMs);
  if (r.limit && *count > *r.limit) r.words += key.pttlMs == -1 ? " (over the limit: blocked for good)" : " (over the limit: blocked until then)";
  if (!r.limit) {
    r.words += "; the key does not hold its limit";
    r.needs = "limit=N";
  }
  r.words += ".";
  return r;
}

}  // namespace rl::detail
