#pragma once
// Token bucket: `limit` tokens of capacity, one token added every interval I
// (integer microseconds). Whole tokens; the partial interval is carried in
// `refilledAt`, so no time is lost to rounding:
//   n = (now - refilledAt) / I;  tokens += n;  refilledAt += n * I;
//   a full bucket restarts the clock (refilledAt = now).
// A fresh key is a full bucket. A denial of cost c waits until c tokens exist:
//   retryAfter = (c - tokens) * I - (now - refilledAt).
// Redis shape: one hash {tokens, ts}.

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Token-bucket state of one key. `fresh` means the key does not exist yet.
struct TokenBucketState {
  bool fresh = true;            ///< no state yet: a full bucket
  std::int64_t tokens = 0;      ///< whole tokens in the bucket
  std::int64_t refilledAt = 0;  ///< time up to which refill has been credited (us)
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(TokenBucketState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
