#pragma once
// Key readings: what a limiter key in Redis means, in the words of the library
// that wrote it. One reader per library (one file each), one signature
// (KeyReader), and one ordered table of rows {library, reader}: keyReaders().
// readKey() asks each row in turn; the first that recognises the key wins, so
// the specific shapes come before the general ones (a bare counter is last).
//
//   RateLab            <prefix>{<algorithm>:<client>}[:<window start>]       ratelab_keys.cpp
//   limits (Python)    <namespace>/<ids..>/<amount>/<multiples>/<granularity> python_limits_keys.cpp
//   go-redis/redis_rate  rate:<key> = GCRA TAT, float seconds since 2017     redis_rate_keys.cpp
//   Kong               ratelimit:<route>:<service>:<id>:<period date>:<period> kong_keys.cpp
//   Envoy ratelimit    <domain>_<key>_<value>_..._<window start>             envoy_keys.cpp
//   rate-limit-redis   rl:<key> counter (express-rate-limit's store)         counter_keys.cpp
//   @fastify/rate-limit  fastify-rate-limit-<key> counter                    counter_keys.cpp
//   rate-limiter-flexible  rlflx[...]:<key> counter                         counter_keys.cpp
//   redis-cell         any name, a GCRA TAT in ns since the epoch            redis_cell_keys.cpp
//   Traefik            rate:<middleware>:<source>, hash last (us) + tokens   traefik_keys.cpp
//   hand-written Lua   a hash tokens + last_refill (the seed script),        script_keys.cpp
//                      a ZSET of timestamps (s, ms or us)
//   any other          <prefix>:<key> integer: a counter, library unnamed    counter_keys.cpp
//
// Some keys do not carry their limit (GCRA's rate and burst, a counter's
// points): KeyAssumptions supplies them (`keys --assume 'rate=10/s burst=20'`,
// the window's Assume field); a reading names what it lacks in `needs` and what
// it took for granted in `assumed`. A key without a TTL gets a warning
// (readKey adds it): a counter that never expires never resets.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "keys/key_info.hpp"

namespace rl {

struct EnvoyConfig;

/// What the user tells the inspector about keys that do not say it themselves.
struct KeyAssumptions {
  std::optional<double> ratePerSecond;  ///< rate=10/s (also /m /h): GCRA emission rate, bucket refill
  std::optional<std::int64_t> burst;    ///< burst=20: GCRA burst
  std::optional<std::int64_t> limit;    ///< limit=10: a counter's points, a bucket's capacity
  std::optional<std::int64_t> windowMs; ///< window=60s (ms s m h): a counter's window, the TTL it needs
};

/// Parses `rate=10/s burst=20 limit=10 window=60s` (any subset, space- or comma-separated);
/// InvalidArgument names the bad part and what is allowed (not the flag or field: the caller does).
Result<KeyAssumptions> parseKeyAssumptions(std::string_view text);

/// What a reader reads a key against: the server's time and what the user told us.
struct ReadContext {
  std::int64_t nowUs = 0;              ///< Redis TIME, us since the epoch
  KeyAssumptions assume;               ///< what the key does not hold
  const EnvoyConfig* envoy = nullptr;  ///< Envoy's descriptors (--envoy-config), when given
};

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
  std::string prefix;                 ///< the library's prefix or namespace of this key ("rl:", "LIMITER/")
  /// The longest TTL the key can need (its window, its refill to full), from the key or the
  /// assumptions; empty when neither says. The audit names TTLs far beyond it.
  std::optional<std::int64_t> ttlBoundMs;
  std::string assumed;                ///< what the reader took for granted, one sentence (empty: nothing)
};

/// One reader: the key's reading, or nullopt when its library did not write it.
using KeyReader = std::optional<KeyReading> (*)(const KeyInfo& key, const ReadContext& context);

/// One row of the registry.
struct KeyReaderRow {
  std::string_view library;  ///< as KeyReading::library (the generic rows name their shape)
  KeyReader read;            ///< the reader
};

/// Every reader, in the order readKey asks them (specific shapes first).
std::span<const KeyReaderRow> keyReaders();

/// Reads `key` (as scanned, values included); nullopt when no known library wrote it.
std::optional<KeyReading> readKey(const KeyInfo& key, const ReadContext& context);

/// The same at server time `nowUs` (Redis TIME, us since the epoch) without Envoy descriptors.
std::optional<KeyReading> readKey(const KeyInfo& key, std::int64_t nowUs, const KeyAssumptions& assume);

/// The unit of a timestamp near server time `nowUs`: 1'000'000 (seconds),
/// 1000 (ms) or 1 (us) per unit of `value`, whichever puts it within ten years
/// of now; 0 when none does (not a time).
std::int64_t timestampUnitUs(double value, std::int64_t nowUs);

/// "s", "ms" or "us" for a unit of timestampUnitUs (empty for 0).
std::string_view timestampUnitName(std::int64_t unitUs);

namespace detail {
std::optional<KeyReading> readRateLabKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readPythonLimitsKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readRedisRateKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readKongKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readEnvoyKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readRateLimitRedisKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readFastifyKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readRateLimiterFlexibleKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readRedisCellKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readTraefikKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readSeedHashKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readZsetLogKey(const KeyInfo& key, const ReadContext& context);
std::optional<KeyReading> readAnyCounterKey(const KeyInfo& key, const ReadContext& context);
/// "the window resets in 3.0 s" / "the window never resets: the key has no TTL" (`pttlMs` -1);
/// `verbs` as "resets"; an empty `subject` starts with the verb.
std::string resetWords(std::string_view subject, std::string_view verbs, std::int64_t pttlMs);
/// Parses a whole decimal integer (the entire text); nullopt otherwise.
std::optional<std::int64_t> wholeNumber(std::string_view text);
/// Parses a whole finite decimal number (the entire text, "1.5", "-3"); nullopt otherwise.
std::optional<double> decimalNumber(std::string_view text);
/// The value of hash field `name`, if the key has it.
std::optional<std::string> fieldOf(const KeyInfo& key, std::string_view name);
}  // namespace detail

}  // namespace rl
