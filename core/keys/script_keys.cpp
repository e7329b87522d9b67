// Keys of hand-written Lua limiters, recognised by their shape (no library name):
//   sliding log    a ZSET of request timestamps (ZADD key <now> <member>,
//                  ZREMRANGEBYSCORE key 0 <now - window>, ZCARD): the scores are
//                  seconds, milliseconds or microseconds since the epoch, whichever
//                  lies near the server's time (timestampUnitUs).
//   token bucket   a HASH with the fields tokens and last_refill (the seed article's
//                  script, resources/examples/seed_token_bucket.lua: HMSET tokens,
//                  last_refill = now in seconds; EXPIRE 2 x capacity / rate). The
//                  tokens are those left at last_refill; capacity and rate are not
//                  in the key: KeyAssumptions supplies them (limit=, rate=).
// Neither key's reset comes from its TTL: the timestamps say it. So a missing TTL
// leaks keys, it does not lock clients out (KeyReading::resetsByExpiry false).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/duration_text.hpp"
#include "keys/key_reading.hpp"

namespace rl::detail {

namespace {
// The key's prefix: up to and with its first ':' (the whole name when it has none).
std::string prefixOf(const std::string& name) {
  const auto colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(0, colon + 1);
}

// ms from the timestamp `t` (in `unitUs`) to now; negative when it lies ahead.
std::int64_t msAgo(double t, std::int64_t unitUs, std::int64_t nowUs) {
  return std::llround((static_cast<double>(nowUs) - t * static_cast<double>(unitUs)) / 1000.0);
}

std::string ago(std::int64_t ms) { return ms >= 0 ? durationText(ms) + " ago" : durationText(-ms) + " ahead"; }

std::string expiryWords(const KeyInfo& k) {
  return k.pttlMs == -1 ? "the key has no TTL" : "the key expires in " + durationText(std::max<std::int64_t>(0, k.pttlMs));
}

std::optional<KeyReading> zsetLog(const KeyInfo& k, std::int64_t nowUs, const KeyAssumptions& a) {
  if (k.zsetHead.empty() || !k.zsetLast) return std::nullopt;
  const auto oldest = decimalNumber(k.zsetHead.front().second);
  const auto newest = decimalNumber(k.zsetLast->second);
  if (!oldest || !newest) return std::nullopt;
  const std::int64_t unit = timestampUnitUs(*newest, nowUs);
  if (unit == 0 || timestampUnitUs(*oldest, nowUs) != unit) return std::nullopt;  // scores that are not times
  KeyReading r;
  r.library = "sorted-set log (hand-written Lua)";
  r.algorithm = "sliding-log";
  r.limit = a.limit;
  r.used = k.zsetSize;
  r.resetsByExpiry = false;
  r.prefix = prefixOf(k.name);
  r.ttlBoundMs = a.windowMs;
  r.assumed = "A sorted set whose scores are times is taken for a sliding log; its window is not in the key.";
  if (k.pttlMs >= 0) r.resetMs = k.pttlMs;
  r.words = "a sliding log in a sorted set, scores in " + std::string(timestampUnitName(unit)) + ": " +
            std::to_string(k.zsetSize) + (a.limit ? " of " + std::to_string(*a.limit) : std::string()) +
            " requests logged, the oldest " + ago(msAgo(*oldest, unit, nowUs)) + ", the newest " +
            ago(msAgo(*newest, unit, nowUs)) + "; " + expiryWords(k) + ".";
  if (!a.limit) r.needs = "limit=N";
  return r;
}

std::optional<KeyReading> seedBucket(const KeyInfo& k, std::int64_t nowUs, const KeyAssumptions& a) {
  const auto tokensText = fieldOf(k, "tokens");
  const auto lastText = fieldOf(k, "last_refill");
  if (!tokensText || !lastText) return std::nullopt;
  const auto tokens = decimalNumber(*tokensText);
  const auto last = decimalNumber(*lastText);
  if (!tokens || !last) return std::nullopt;
  const std::int64_t unit = timestampUnitUs(*last, nowUs);
  if (unit == 0) return std::nullopt;
  KeyReading r;
  r.library = "hash token bucket (seed script)";
  r.algorithm = "token_bucket";
  r.limit = a.limit;
  r.resetsByExpiry = false;
  r.prefix = prefixOf(k.name);
  r.assumed = "Capacity and refill rate are not in the key; the script's EXPIRE is 2 x capacity / rate.";
  if (a.limit && a.ratePerSecond) r.ttlBoundMs = std::llround(2.0 * static_cast<double>(*a.limit) / *a.ratePerSecond * 1000.0);
  const std::int64_t sinceMs = msAgo(*last, unit, nowUs);
  char left[32];
  std::snprintf(left, sizeof left, "%g", *tokens);
  r.words = "a token bucket in a hash (tokens, last_refill in " + std::string(timestampUnitName(unit)) + "): " + left +
            " tokens left at the last request, " + ago(sinceMs);
  if (a.limit && a.ratePerSecond) {  // refilled since then, as the script will on the next request
    const double cap = static_cast<double>(*a.limit);
    const double now = std::min(cap, *tokens + std::max<std::int64_t>(0, sinceMs) / 1000.0 * *a.ratePerSecond);
    const auto whole = static_cast<std::int64_t>(std::floor(now));
    r.used = *a.limit - whole;
    r.resetMs = std::llround((cap - now) / *a.ratePerSecond * 1000.0);
    r.words += "; " + std::to_string(whole) + " of " + std::to_string(*a.limit) + " now, full in " + durationText(*r.resetMs);
  } else {
    r.needs = "limit=N rate=R/s";
  }
  r.words += "; " + expiryWords(k) + ".";
  return r;
}
}  // namespace

std::optional<KeyReading> readZsetLogKey(const KeyInfo& key, const ReadContext& context) {
  if (key.type != "zset") return std::nullopt;
  return zsetLog(key, context.nowUs, context.assume);
}

std::optional<KeyReading> readSeedHashKey(const KeyInfo& key, const ReadContext& context) {
  if (key.type != "hash") return std::nullopt;
  return seedBucket(key, context.nowUs, context.assume);
}

}  // namespace rl::detail
