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
// Redis shape: one string, fullAt in us (resources/lua/token_bucket.lua).

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Token-bucket state of one key. `fresh` means the key does not exist yet.
struct TokenBucketState {
  bool fresh = true;        ///< no state yet: a full bucket
  std::int64_t fullAt = 0;  ///< time the bucket is full again (us)
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(TokenBucketState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
