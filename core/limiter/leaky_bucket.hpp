#pragma once
// Leaky bucket as a shaper: requests join a queue drained at one request per
// interval I; admitted requests are told how long they wait (`delay`); a
// request that would wait more than `limit - 1` intervals is denied. So, as for
// every other algorithm, `limit` is the most requests admitted at once: one in
// service and limit - 1 waiting. (nginx's limit_req counts differently: its
// `burst` is the waiting requests only, so nginx burst=B is limit B + 1 here.)
//
// State is the time the queue drains (`drainAt`, like GCRA's theoretical
// arrival time). For a request of cost c at `now`:
//   start = max(now, drainAt); delay = start - now;
//   admitted iff delay + (c - 1) * I <= (limit - 1) * I; then drainAt = start + c * I.
// With limit 5 and I = 1 s, six simultaneous requests get delays
// 0, 1, 2, 3, 4 s and the sixth is denied.
// A quota change keeps the queued requests: the state remembers the interval
// it was written with, and the queue is rescaled to the new interval
// (limiter/quota_change.hpp).
// Redis shape: one string "drainAt:interval" in us; a bare "drainAt" (older
// keys) is read under the current quota.

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Leaky-bucket state of one key. `fresh` means the key does not exist yet (queue empty).
struct LeakyBucketState {
  bool fresh = true;         ///< no state yet: empty queue
  std::int64_t drainAt = 0;  ///< when the queue will be empty (us since epoch)
  std::int64_t interval = 0; ///< us per request when written (0: unknown, read as the quota's)
};

/// When the queue drains under interval `iv`, at `now` (fresh or drained: now).
std::int64_t drainAtUnder(const LeakyBucketState& s, std::int64_t now, std::int64_t iv);

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(LeakyBucketState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
