#pragma once
// LimiterState: the state of one key for any algorithm, and the one dispatch
// from (algorithm, state, now, cost, quota) to the algorithm's pure function.

#include <variant>

#include "limiter/fixed_window.hpp"
#include "limiter/gcra.hpp"
#include "limiter/leaky_bucket.hpp"
#include "limiter/sliding_counter.hpp"
#include "limiter/sliding_log.hpp"
#include "limiter/token_bucket.hpp"

namespace rl {

/// The state of one limiter key; the alternative matches the algorithm.
using LimiterState = std::variant<FixedWindowState, SlidingLogState, SlidingCounterState,
                                  TokenBucketState, LeakyBucketState, GcraState>;

/// A fresh (never used) state for `a`.
LimiterState freshState(Algorithm a);

/// Runs `a` on `state` (made fresh first if it holds another algorithm's state).
/// Pure: no clock, no I/O. The quota and cost must be valid (Quota::validate, validateCost).
Step decide(Algorithm a, LimiterState& state, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
