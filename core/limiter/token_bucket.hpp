#pragma once
// Token bucket: `limit` tokens of capacity, one token added every interval I
// (integer microseconds), whole tokens. The state is one number: the time the
// bucket is full again (fullAt). At `now` the bucket holds
//   tokens = limit - ceil((fullAt - now) / I)      (limit once fullAt <= now),
// so the partial interval is carried with no rounding loss, and taking c
// tokens moves fullAt to max(fullAt, now) + c * I. A fresh key is a full bucket.
// A request of cost c is admitted when c tokens are there, i.e. when
//   max(fullAt, now) + c * I - now <= limit * I,
// and a denial waits until they are: retryAfter = max(fullAt, now) + c * I - now - limit * I.
// (Whole tokens make this the arithmetic of GCRA with a burst of `limit`.)
// A clock behind the state sees the bucket as full only at fullAt, so it sees
// fewer tokens than a clock at the state's time, never more.
// A quota change keeps the tokens (clamped to the new capacity): the state
// remembers the interval and limit it was written with, and a state written
// under another quota is first read as tokens (limiter/quota_change.hpp).
// Redis shape: one string "fullAt:interval:limit" in us (resources/lua/token_bucket.lua);
// a bare "fullAt" (older keys) is read under the current quota.

#include <cstdint>
#include <limits>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Token-bucket state of one key. A key that does not exist yet is a bucket
/// full since forever (`fullAt` at its minimum), so the state stays 24 bytes.
struct TokenBucketState {
  std::int64_t fullAt = std::numeric_limits<std::int64_t>::min();  ///< time the bucket is full again (us)
  std::int64_t interval = 0;  ///< us per token when written (0: unknown, read as the quota's)
  std::int64_t limit = 0;     ///< capacity when written (0: unknown, read as the quota's)
};

/// The time the bucket is full again under `q`, at `now`: `s.fullAt` when
/// `s` was written under `q`, else its tokens carried over (fresh: now).
std::int64_t fullAtUnder(const TokenBucketState& s, std::int64_t now, std::int64_t interval, std::int64_t limit);

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(TokenBucketState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
