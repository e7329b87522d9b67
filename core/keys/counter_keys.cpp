// Counter keys: a string integer with an expiry, counted up per request. The
// PTTL is the reset; none of them holds its limit (KeyAssumptions::limit), and
// the window is the TTL each write sets (KeyAssumptions::windowMs bounds it).
//   rate-limit-redis (express-rate-limit's store, verified with the npm package 4.x):
//     rl:<key>; INCR, then PEXPIRE windowMs when the count is 1 or the key has no TTL;
//     hits in the value, resetTime = now + PTTL.
//   @fastify/rate-limit (its RedisStore, verified with the npm package 11.x):
//     fastify-rate-limit-<key> (the nameSpace option); one Lua script: INCR, PEXPIRE
//     timeWindow when the count is 1 (or, with continueExceeding, when over max; with
//     exponentialBackoff, timeWindow x 2^(count - max - 1): a TTL beyond the window on
//     purpose); the count in the value, ttl = PTTL.
//   rate-limiter-flexible RateLimiterRedis (verified with the npm package 5.x):
//     <keyPrefix>:<key>, keyPrefix "rlflx" by default; SET 0 EX <duration s> NX + INCRBY;
//     consumed points in the value, msBeforeNext = PTTL; block() writes points + 1 with
//     the block's expiry. BurstyRateLimiter, RateLimiterQueue and RLWrapperBlackAndWhite
//     store through RateLimiterRedis: same keys (a bursty limiter's second prefix too).
// Any other prefix:key integer is shown as this shape, library unnamed. A counter
// without a TTL is read too: it is the lockout readKey warns about.
#include <algorithm>

#include "keys/key_reading.hpp"

namespace rl::detail {

namespace {
// What differs between the counter libraries: their name, prefix and words.
struct CounterShape {
  std::string library;  ///< KeyReading::library
  std::string prefix;   ///< the prefix the key starts with
  std::string what;     ///< how the words begin ("express-rate-limit (rate-limit-redis) window: ")
  std::string assumed;  ///< what is taken for granted
};

std::optional<KeyReading> counterReading(const KeyInfo& key, const ReadContext& context, CounterShape shape) {
  if (key.type != "string" || key.pttlMs < -1 || key.name.size() <= shape.prefix.size()) return std::nullopt;
  const auto count = wholeNumber(key.value);
  if (!count || *count < 0) return std::nullopt;
  const KeyAssumptions& assume = context.assume;
  KeyReading r;
  r.library = std::move(shape.library);
  r.prefix = std::move(shape.prefix);
  r.assumed = std::move(shape.assumed);
  r.algorithm = "fixed-window";
  r.used = *count;
  r.resetMs = std::max<std::int64_t>(0, key.pttlMs);
  r.limit = assume.limit;
  r.ttlBoundMs = assume.windowMs;
  r.words = shape.what + std::to_string(*count) + (r.limit ? " of " + std::to_string(*r.limit) : std::string()) +
            " used, " + resetWords("", "resets", key.pttlMs);
  if (r.limit && *count > *r.limit) r.words += key.pttlMs == -1 ? " (over the limit: blocked for good)" : " (over the limit: blocked until then)";
  if (!r.limit) {
    r.words += "; the key does not hold its limit";
    r.needs = "limit=N";
  }
  r.words += ".";
  return r;
}
}  // namespace

std::optional<KeyReading> readRateLimitRedisKey(const KeyInfo& key, const ReadContext& context) {
  if (!key.name.starts_with("rl:")) return std::nullopt;
  return counterReading(key, context, {"rate-limit-redis", "rl:", "express-rate-limit (rate-limit-redis) window: ",
                                       "The prefix rl: is rate-limit-redis's default; max and windowMs are not in the key."});
}

std::optional<KeyReading> readFastifyKey(const KeyInfo& key, const ReadContext& context) {
  if (!key.name.starts_with("fastify-rate-limit-")) return std::nullopt;
  return counterReading(key, context, {"@fastify/rate-limit", "fastify-rate-limit-", "@fastify/rate-limit window: ",
                                       "The prefix is the plugin's default nameSpace; max and timeWindow are not in the key."});
}

std::optional<KeyReading> readRateLimiterFlexibleKey(const KeyInfo& key, const ReadContext& context) {
  const auto colon = key.name.find(':');
  if (colon == std::string::npos || !key.name.starts_with("rlflx")) return std::nullopt;
  return counterReading(key, context, {"rate-limiter-flexible", key.name.substr(0, colon + 1), "rate-limiter-flexible counter: ",
                                       "A keyPrefix starting rlflx is taken for rate-limiter-flexible; points and duration are not in the key."});
}

std::optional<KeyReading> readAnyCounterKey(const KeyInfo& key, const ReadContext& context) {
  const auto colon = key.name.find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  const std::string prefix = key.name.substr(0, colon);
  return counterReading(key, context, {"counter (rate-limiter-flexible shape)", prefix + ":",
                                       "a counter (the shape of rate-limiter-flexible with keyPrefix '" + prefix + "'): ",
                                       "An integer under a prefix is taken for a fixed-window counter; its library is not known."});
}

}  // namespace rl::detail
