#pragma once
// Quota: how much traffic a key may pass. One type for all six algorithms.
//
//   window algorithms (fixed_window, sliding_log, sliding_counter):
//       at most `limit` requests in any `window`.
//   rate algorithms (token_bucket, leaky_bucket, gcra):
//       capacity / queue / burst = `limit`; refill (leak, emission) rate =
//       `refillPerSecond` when set, else `limit` per `window`.
//
// Rate algorithms run on an integer emission interval (microseconds per
// token), computed once by interval(): round(1e6 / rate), or window / limit.

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/time.hpp"

namespace rl {

/// Limits accepted by validate(): large enough for any real API, small enough
/// that every product of limit and interval fits in 64-bit microseconds.
inline constexpr std::int64_t kMaxLimit = 1'000'000'000'000;  // 10^12
/// sliding_log keeps one timestamp per admitted unit of cost, so its limit is
/// the entries one key can hold: at most 10^6 (8 MB in memory, 17 MB in Redis).
inline constexpr std::int64_t kMaxSlidingLogLimit = 1'000'000;
inline constexpr Micros kMinWindow = kMillisecond;
inline constexpr Micros kMaxWindow = kYear;
inline constexpr double kMaxRefillPerSecond = 1'000'000.0;  // one token per microsecond

/// How much traffic a key may pass; see the file comment for each algorithm's reading.
struct Quota {
  std::int64_t limit = 100;                ///< window limit, bucket capacity, queue size or burst
  Micros window{60 * kSecond};             ///< window length; default refill period of buckets
  std::optional<double> refillPerSecond;   ///< tokens (or leaks) per second; unset = limit / window

  /// `n` requests per second, burst `n`.
  static Quota perSecond(std::int64_t n) { return {n, kSecond, std::nullopt}; }
  /// `n` requests per minute, burst `n`.
  static Quota perMinute(std::int64_t n) { return {n, 60 * kSecond, std::nullopt}; }
  /// `n` requests per `window`.
  static Quota perWindow(std::int64_t n, Micros window) { return {n, window, std::nullopt}; }
  /// Keeps the rate (limit per window, or the explicit refill) and sets the burst / capacity.
  Quota withBurst(std::int64_t burst) const;
  /// Sets an explicit refill (leak) rate in tokens per second.
  Quota withRefill(double perSecond) const;

  /// Tokens per second for rate algorithms.
  double ratePerSecond() const;
  /// Emission interval: integer microseconds per token (valid quotas only; >= 1).
  Micros interval() const;

  /// Checks every field for `algorithm`; the error names the field and the allowed range.
  Result<void> validate(Algorithm algorithm) const;

  /// Readable form: "100 req / 60s" or "10 req/s (burst 20)".
  std::string toString() const;

  bool operator==(const Quota&) const = default;
};

/// Checks a request's cost against the quota: 1 <= cost <= limit (a larger cost could never pass).
Result<void> validateCost(std::int64_t cost, const Quota& quota);

}  // namespace rl
