#pragma once
// Key readings: what a limiter key in Redis means, in the words of the library
// that wrote it. Each library has its own small reader (one file each, formats
// verified by running the real library against a test redis-server, see
// tests/core/redis/test_foreign_keys.cpp); readKey() tries them in turn.
//
//   RateLab          <prefix>{<algorithm>:<client>}[:<window start>]   ratelab_keys.cpp
//   Python limits    <namespace>/<ids..>/<amount>/<multiples>/<granularity>  python_limits_keys.cpp
//   go-redis/redis_rate  rate:<key> = GCRA TAT, seconds since 2017-01-01     redis_rate_keys.cpp
//   rate-limiter-flexible  <keyPrefix>:<key> counter (default rlflx)      counter_keys.cpp
//   rate-limit-redis       rl:<key> counter                              counter_keys.cpp
//   hand-written Lua       a ZSET of timestamps (sliding log), a hash      script_keys.cpp
//                          tokens + last_refill (the seed script's bucket)
//
// Some keys do not carry their limit (GCRA's rate and burst, a counter's
// points): KeyAssumptions supplies them (`keys --assume 'rate=10/s burst=20'`,
// the window's Assume field); a reading names what it lacks in `needs`, and
// each surface says in its own words where to give it. A key without a TTL
// gets a warning (readKey adds it): a counter that never expires never resets.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/key_inspector.hpp"

namespace rl {

/// What the user tells the inspector about keys that do not say it themselves.
struct KeyAssumptions {
  std::optional<double> ratePerSecond;  ///< rate=10/s (also /m /h): GCRA emission rate, bucket refill
  std::optional<std::int64_t> burst;    ///< burst=20: GCRA burst
  std::optional<std::int64_t> limit;    ///< limit=10: a counter's points, a bucket's capacity
};

/// Parses `rate=10/s burst=20 limit=10` (any subset, space- or comma-separated);
/// InvalidArgument names the bad part and what is allowed (not the flag or field: the caller does).
Result<KeyAssumptions> parseKeyAssumptions(std::string_view text);

/// One key as its library sees it. Optional numbers are unknown when empty.
struct KeyReading {
  std::string library;               ///< "RateLab", "limits (Python)", "rate-limiter-flexible", ...
  std::string algorithm;             ///< "token_bucket", "moving-window", "gcra", "fixed-window", ...
  std::optional<std::int64_t> limit;   ///< most requests admitted at once / per window
  std::optional<std::int64_t> used;    ///< used now (count in the window, tokens taken, ...)
  std::optional<std::int64_t> resetMs; ///< until the key is as good as new (the library's own "reset"); none without a TTL
  std::string words;                 ///< the key explained in one or two plain sentences
  /// What the key does not hold and the reading would use, as assumptions to give
  /// ("limit=N", "rate=10/s burst=20"); empty when nothing is missing.
  std::string needs;
  /// True when the key's count only resets by its expiry (counters, windows, RateLab's keys):
  /// without a TTL such a key never resets. False when the value itself says when (a
  /// bucket's last refill, a log's timestamps): without a TTL such a key only leaks.
  bool resetsByExpiry = true;
  std::vector<std::string> warnings;  ///< what is wrong with the key, one sentence each (no TTL)
};

/// The unit of a timestamp near server time `nowUs`: 1'000'000 (seconds),
/// 1000 (ms) or 1 (us) per unit of `value`, whichever puts it within ten years
/// of now; 0 when none does (not a time).
std::int64_t timestampUnitUs(double value, std::int64_t nowUs);

/// "s", "ms" or "us" for a unit of timestampUnitUs (empty for 0).
std::string_view timestampUnitName(std::int64_t unitUs);

/// Reads `key` (as scanned, values included) at server time `nowUs` (Redis
/// TIME, us since the epoch); nullopt when no known library wrote it.
std::optional<KeyReading> readKey(const KeyInfo& key, std::int64_t nowUs, const KeyAssumptions& assume);

namespace detail {
std::optional<KeyReading> readRateLabKey(const KeyInfo& key, const KeyAssumptions& assume);
std::optional<KeyReading> readPythonLimitsKey(const KeyInfo& key, std::int64_t nowUs);
std::optional<KeyReading> readRedisRateKey(const KeyInfo& key, std::int64_t nowUs, const KeyAssumptions& assume);
std::optional<KeyReading> readCounterKey(const KeyInfo& key, const KeyAssumptions& assume);
std::optional<KeyReading> readScriptKey(const KeyInfo& key, std::int64_t nowUs, const KeyAssumptions& assume);
/// "the window resets in 3.0 s" / "the window never resets: the key has no TTL" (`pttlMs` -1);
/// `verbs` as "resets"; an empty `subject` starts with the verb.
std::string resetWords(std::string_view subject, std::string_view verbs, std::int64_t pttlMs);
/// Parses a whole decimal integer (the entire text); nullopt otherwise.
std::optional<std::int64_t> wholeNumber(std::string_view text);
}  // namespace detail

}  // namespace rl
