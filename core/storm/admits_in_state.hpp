#pragma once
// How many admits a limiter key's state holds, read with plain commands (GET,
// KEYS), for the failover reports: sliding_log holds one timestamp per admitted
// unit, fixed_window and sliding_counter a count per window key. That is exact
// while nothing expired, i.e. the window outlasts the storm. token_bucket,
// leaky_bucket and gcra hold a time (full again, drained, theoretical arrival)
// that moves back as time passes, so it does not say how many admits it took.

#include <cstdint>
#include <string>

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// Why `a`'s state cannot be counted, or "" when it can.
std::string whyNotCountable(Algorithm a);

/// Admitted units in the state of `base` on `conn` (a key that is absent holds 0).
/// InvalidArgument for an algorithm that cannot be counted; Protocol for a value that does not decode.
Result<std::int64_t> admitsInState(RedisConnection& conn, Algorithm a, const std::string& base);

}  // namespace rl
