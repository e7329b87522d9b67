#pragma once
// The decision contract: every algorithm on every store answers with this.

#include <cstdint>

#include "limiter/time.hpp"

namespace rl {

/// One limiter answer. Identical fields whatever the algorithm or store.
struct Decision {
  bool allowed = false;    ///< the request may proceed (after `delay` for a shaper)
  std::int64_t remaining = 0;  ///< further cost-1 requests admissible right now, never negative
  std::int64_t limit = 0;  ///< the quota's limit (window limit, capacity, burst or queue)
  Micros retryAfter{0};    ///< >0 when denied: retrying exactly this much later succeeds
  Micros resetAfter{0};    ///< time until the key is back to full capacity (fresh state)
  Micros delay{0};         ///< leaky bucket: how long an admitted request waits in the queue
  double level = 0;        ///< tokens / window count / queue depth, for charts
  /// An HTTP target's own failure policy made it (its store was down; it said so
  /// in X-RateLimit-Failure-Policy): counted as degraded, never decided again.
  bool degraded = false;
};

}  // namespace rl
