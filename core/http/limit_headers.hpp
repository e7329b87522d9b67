#pragma once
// Limit headers, every dialect, both directions: the one header codec.
//
// Written: what `serve` sends (limitDecisionHeaders(), below) and any dialect
// on request (limitHeaderFields(), for tests and round trips).
// Read (readLimitHeaders()), whatever a limiter sends:
//   ietf-draft-8  RateLimit-Policy: "burst";q=100;w=60;pk=:..:, "day";q=1000;w=86400
//                 RateLimit: "burst";r=42;t=7     (RFC 8941 lists, named policies)
//   ietf-draft-7  RateLimit: limit=10, remaining=3, reset=5  (a dictionary)
//                 RateLimit-Policy: 10;w=60
//   ietf-draft-6  RateLimit-Limit / -Remaining / -Reset (+ RateLimit-Policy: 10;w=60)
//   x-ratelimit   X-RateLimit-Limit / -Remaining / -Reset; the reset's unit is
//                 inferred and the inference stated: >= 10^12 epoch ms, >= 10^9
//                 epoch s, else a delta: ms when it exceeds 1000 and twice the
//                 window known from a policy, otherwise seconds
//   Retry-After   delta-seconds or an HTTP-date; Retry-After-Ms milliseconds
//   nginx-status  nginx's $limit_req_status exposed as any header (recognised
//                 by its value: PASSED, DELAYED, REJECTED, *_DRY_RUN)
//   envoy         x-envoy-ratelimited
// Absent values are -1 (unknown), never invented. Saturated at 2^52 us.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_message.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"

namespace rl {

/// The header dialect a limiter speaks (the richest one present in a response).
enum class LimitDialect { None, IetfDraft8, IetfDraft7, IetfDraft6, XRateLimit, NginxStatus, Envoy, RetryAfterOnly };
/// Stable name: "ietf-draft-8", "ietf-draft-7", "ietf-draft-6", "x-ratelimit", "nginx-status", "envoy",
/// "retry-after", "none".
std::string_view limitDialectName(LimitDialect d);

/// How a reset number was read.
enum class ResetUnit { Unknown, DeltaSeconds, DeltaMillis, EpochSeconds, EpochMillis };
/// "delta seconds", "delta milliseconds", "epoch seconds", "epoch milliseconds", "unknown".
std::string_view resetUnitName(ResetUnit u);

/// One declared policy (a RateLimit-Policy item).
struct LimitPolicy {
  std::string name;          ///< draft-8 name ("" in older drafts)
  std::int64_t quota = -1;   ///< q: requests (or units) per window
  std::int64_t windowS = -1; ///< w: window seconds
  std::string partitionKey;  ///< pk as sent (base64)
};

/// One current state (a RateLimit item).
struct LimitState {
  std::string name;            ///< the policy it belongs to ("" when unnamed)
  std::int64_t remaining = -1; ///< r
  std::int64_t resetS = -1;    ///< t: seconds until the quota is back
};

/// What one response says about its limits; see the file comment.
struct LimitHeaders {
  LimitDialect dialect = LimitDialect::None;  ///< the richest dialect present
  std::vector<LimitPolicy> policies;          ///< every declared policy, in order
  std::vector<LimitState> states;             ///< every RateLimit item, in order
  std::int64_t limit = -1;          ///< the binding policy's quota
  std::int64_t remaining = -1;      ///< the binding policy's remaining (the smallest)
  std::int64_t windowS = -1;        ///< the binding policy's window
  std::int64_t resetMs = -1;        ///< until the binding policy is full again
  std::int64_t retryAfterMs = -1;   ///< Retry-After (taken as seconds) as ms; else Retry-After-Ms
  std::int64_t retryAfterRaw = -1;  ///< the Retry-After number as sent (delta form only)
  std::int64_t retryAfterMsField = -1;  ///< Retry-After-Ms as sent
  bool retryAfterIsDate = false;    ///< Retry-After came as an HTTP-date
  ResetUnit resetUnit = ResetUnit::Unknown;  ///< how a RateLimit-Reset / X-RateLimit-Reset number was read
  std::string resetInference;       ///< that reading in words ("X-RateLimit-Reset 1445412540: epoch seconds")
  std::string nginxStatus;          ///< PASSED, DELAYED, REJECTED, *_DRY_RUN ("" when absent)
  bool envoyLimited = false;        ///< x-envoy-ratelimited was present
};

/// Reads every dialect from `headers`; `nowS` (unix seconds) turns dates and epochs into durations.
LimitHeaders readLimitHeaders(const HttpHeaders& headers, std::int64_t nowS);
/// The same for a response.
LimitHeaders readLimitHeaders(const HttpResponse& r, std::int64_t nowS);

/// A limit state to write in some dialect (limitHeaderFields).
struct LimitSnapshot {
  std::string name = "default";  ///< policy name (draft-8)
  std::int64_t quota = 10;       ///< requests per window
  std::int64_t windowS = 60;     ///< window seconds
  std::int64_t remaining = 9;    ///< requests left
  std::int64_t resetS = 60;      ///< seconds until full
  bool denied = false;           ///< add Retry-After (= resetS), nginx REJECTED, envoy's header
};

/// The header fields `dialect` sends for `s` (X-RateLimit-Reset as delta seconds, nginx's
/// status as X-Status).
HttpHeaders limitHeaderFields(LimitDialect dialect, const LimitSnapshot& s);

// ---- What `serve` sends (its hot path appends into one buffer) -------------

/// Retry-After seconds: `d` rounded up to whole seconds, at least 1.
std::int64_t retryAfterSeconds(Micros d);
/// Retry-After-Ms: `d` rounded up to whole milliseconds, at least 1.
std::int64_t retryAfterMillis(Micros d);
/// Appends `v` in decimal.
void appendLimitInt(std::string& out, std::int64_t v);
/// Appends the RateLimit-Policy value `"<algorithm>";q=<limit>;w=<seconds to refill or window>`.
void appendRateLimitPolicyField(std::string& out, Algorithm a, const Quota& q);
/// Appends the RateLimit value `"<algorithm>";r=<remaining>;t=<seconds until full, rounded up>`.
void appendRateLimitField(std::string& out, Algorithm a, const Decision& d);
/// The RateLimit-Policy value as a string.
std::string rateLimitPolicyField(Algorithm a, const Quota& q);
/// The RateLimit value as a string.
std::string rateLimitField(Algorithm a, const Decision& d);

/// Every limit header of a replica's decision answer, in wire order: add(name, write), where
/// write(std::string&) appends the value. X-RateLimit-Limit/-Remaining, RateLimit-Policy and
/// RateLimit (draft-8 form), X-RateLimit-Replica, X-RateLimit-Delay-Ms when shaped, and when
/// denied Retry-After (seconds, rounded up) and Retry-After-Ms.
template <class Add>
void limitDecisionHeaders(const Decision& d, Algorithm a, const Quota& q, int replica, Add&& add) {
  add("X-RateLimit-Limit", [&](std::string& o) { appendLimitInt(o, d.limit); });
  add("X-RateLimit-Remaining", [&](std::string& o) { appendLimitInt(o, d.remaining); });
  add("RateLimit-Policy", [&](std::string& o) { appendRateLimitPolicyField(o, a, q); });
  add("RateLimit", [&](std::string& o) { appendRateLimitField(o, a, d); });
  add("X-RateLimit-Replica", [&](std::string& o) { appendLimitInt(o, replica); });
  if (d.allowed && d.delay.count() > 0)
    add("X-RateLimit-Delay-Ms", [&](std::string& o) { appendLimitInt(o, ceilMillis(d.delay)); });
  if (!d.allowed) {
    add("Retry-After", [&](std::string& o) { appendLimitInt(o, retryAfterSeconds(d.retryAfter)); });
    add("Retry-After-Ms", [&](std::string& o) { appendLimitInt(o, retryAfterMillis(d.retryAfter)); });
  }
}

}  // namespace rl
