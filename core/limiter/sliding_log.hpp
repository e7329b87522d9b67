#pragma once
// Sliding log: one timestamp per admitted unit of cost; the window is (now - W, now].
//
// Entries at or before now - W are dropped first, then the request is admitted
// when count + cost <= limit. A denial waits until enough of the oldest entries
// leave the window: exact, never more than `limit` in any window.
// Redis shape: one string of fixed-width timestamps, oldest first
// (resources/lua/sliding_log.lua, keys/value_codec.hpp).

#include <cstdint>
#include <deque>

#include "limiter/quota.hpp"
#include "limiter/step.hpp"

namespace rl {

/// Sliding-log state of one key: admitted timestamps (us), sorted ascending.
struct SlidingLogState {
  std::deque<std::int64_t> entries;  ///< one entry per unit of admitted cost
};

/// One decision; updates `s` in place and reads nothing else (no clock, no I/O).
Step decide(SlidingLogState& s, Micros now, std::int64_t cost, const Quota& q);

}  // namespace rl
