#pragma once
// Sliding window counter: counts for the current and the previous aligned
// window; the previous one is weighted by how much of it the sliding window
// still overlaps:  estimate = prev * (W - elapsed) / W + curr.
//
// Admitted when estimate + cost <= limit, evaluated exactly in integers:
//   prev * (W - elapsed) + (curr + cost) * W <= limit * W.
// Redis shape: two strings sharing one hash tag, `<key>:<window start us>`
// for the current and the previous window.

#include <cstdint>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Sliding-counter state of one key.
struct SlidingCounterState {
  std::int64_t windowStart = 0;  ///< start of the current window (us since epoch)
  std::int64_t previous = 0;     ///< cost admitted in the window before it
  std::int64_t current = 0;      ///< cost admitted in the current window
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(SlidingCounterState& s, Micros now, std::int64_t cost, const Quota& q);

/// The weighted estimate prev * (W - elapsed) / W + curr, as charts show it.
double slidingEstimate(std::int64_t previous, std::int64_t current, Micros elapsed, Micros window);

}  // namespace rl
