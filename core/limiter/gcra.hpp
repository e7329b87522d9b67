#pragma once
// GCRA, the generic cell rate algorithm (as in redis-cell): one theoretical
// arrival time (TAT) per key.
//
// Emission interval T = the quota's interval (us per request); the burst
// (delay variation tolerance) is `limit` requests: limit * T. For cost c:
//   newTat = max(tat, now) + c * T
//   admitted iff newTat - now <= limit * T; else retryAfter = newTat - now - limit * T.
// With rate 1/s and burst 5, five requests at t = 0 pass (remaining 4..0) and
// the sixth waits exactly 1 s.
// Redis shape: one string holding the TAT.

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// GCRA state of one key. `fresh` means the key does not exist yet.
struct GcraState {
  bool fresh = true;     ///< no state yet: TAT = now
  std::int64_t tat = 0;  ///< theoretical arrival time (us since epoch)
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(GcraState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
