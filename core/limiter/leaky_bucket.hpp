#pragma once
// Leaky bucket as a shaper: requests join a queue drained at one request per
// interval I; admitted requests are told how long they wait (`delay`); a
// request that would wait more than `limit` intervals is denied.
//
// State is the time the queue drains (`drainAt`, like GCRA's theoretical
// arrival time). For a request of cost c at `now`:
//   start = max(now, drainAt); delay = start - now;
//   admitted iff delay + (c - 1) * I <= limit * I; then drainAt = start + c * I.
// With limit 5 and I = 1 s, seven simultaneous requests get delays
// 0, 1, 2, 3, 4, 5 s and the seventh is denied.
// Redis shape: one hash {tat}.

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Leaky-bucket state of one key. `fresh` means the key does not exist yet (queue empty).
struct LeakyBucketState {
  bool fresh = true;         ///< no state yet: empty queue
  std::int64_t drainAt = 0;  ///< when the queue will be empty (us since epoch)
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(LeakyBucketState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
