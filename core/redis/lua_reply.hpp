#pragma once
// The reply of a limiter Lua script (resources/lua/prelude.lua) as a Decision.
// The scripts return integers only; the chart level, a fraction, is derived
// here with the same double arithmetic as core/limiter, so a fraction never
// has to be formatted inside Redis.

#include "common/result.hpp"
#include "limiter/algorithm.hpp"
#include "limiter/decision.hpp"
#include "limiter/quota.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// Parses {allowed, remaining, retryAfter_us, resetAfter_us, delay_us[, extra..]} of the script of `a`.
Result<Decision> parseLuaDecision(ReplyView reply, Algorithm a, const Quota& q);

}  // namespace rl
