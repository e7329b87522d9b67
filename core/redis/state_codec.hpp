#pragma once
// StateCodec (internal to core/redis): the Redis shape of each algorithm's
// state, for the stores that decide in C++ (redis-naive, redis-watch). Keys and
// encodings are the same the Lua scripts use, so every variant reads and
// writes the same keys.

#include <string>
#include <vector>

#include "common/result.hpp"
#include "limiter/limiter_state.hpp"
#include "redis/redis_connection.hpp"
#include "store/store.hpp"

namespace rl::detail {

/// The state of one key as read from Redis, and the time it was read at.
struct ReadState {
  std::int64_t now = 0;           ///< us; Redis TIME or the request's time
  std::vector<std::string> keys;  ///< the keys read (and to WATCH / write)
  LimiterState state;             ///< decoded state (fresh when the keys are missing)
};

/// fixed_window and sliding_counter: their keys name a window, so the time picks them.
bool keysNeedTime(Algorithm a);
/// Start (us) of the aligned window holding `now`.
std::int64_t windowStart(std::int64_t now, const Quota& q);
/// The keys of `base` at `now`: `<base>:<window start>` (sliding_counter: the
/// current window, then the previous one), else the base key alone. The Lua
/// scripts get the same keys (redis-lua's ScriptCall).
std::vector<std::string> keysAt(Algorithm a, const std::string& base, std::int64_t now, const Quota& q);

/// Reads the state of `request` in one round trip (two when the server clock
/// decides which window key to read). With `watch`, WATCHes the keys first,
/// in the same round trip as the read.
Result<ReadState> readState(RedisConnection& conn, const std::string& base,
                            const DecisionRequest& request, bool serverClock, bool watch);

/// The commands that persist `state` after a decision that wrote (TTL = `ttl`).
std::vector<std::vector<std::string>> writeCommands(Algorithm a, const ReadState& read,
                                                    const LimiterState& state, Micros ttl);

/// Sends `commands` pipelined in one round trip; the first error reply (if any) is returned.
Result<std::vector<RedisReply>> runPipeline(RedisConnection& conn,
                                            const std::vector<std::vector<std::string>>& commands);

}  // namespace rl::detail
