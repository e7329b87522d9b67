#pragma once
// After a user script timed out: SCRIPT KILL on a fresh connection, so a
// looping script does not leave a shared Redis answering BUSY to every client.
//
// Redis reads other connections during a script only once the script has run
// longer than its busy-reply-threshold (lua-time-limit before Redis 7; 5 s by
// default), so the kill waits up to that long (plus the command timeout and 1 s) for
// its answer. Only AUTH precedes it (PING and SELECT are refused while busy).
// A script that wrote cannot be killed (UNKILLABLE): only SHUTDOWN NOSAVE
// stops it, losing unsaved data, and RateLab never sends that.

#include <string>

#include "redis/redis_url.hpp"

namespace rl {

class RedisConnection;

/// What SCRIPT KILL found.
enum class ScriptKillResult {
  Killed,      ///< a script was running and Redis stopped it
  NotBusy,     ///< no script was running any more (it was slow, and ended)
  Unkillable,  ///< the script wrote: Redis refused (UNKILLABLE); it stays BUSY
  NoAnswer,    ///< no answer in time (a stopped server), or no connection
};

/// The result and Redis' words (or why there was no answer).
struct ScriptKillOutcome {
  ScriptKillResult result = ScriptKillResult::NoAnswer;  ///< see ScriptKillResult
  std::string detail;                                    ///< the reply or the connection error
};

/// Sends SCRIPT KILL to `node` on a new connection (AUTH first if a password is set), waiting
/// at most `wait` for the answer. Never throws, never reuses a caller's connection.
ScriptKillOutcome killBusyScript(const RedisEndpoint& node, Micros wait);

/// The server's busy-reply-threshold (CONFIG GET lua-time-limit, its name in every version)
/// over `conn`, or 5 s when CONFIG is refused.
Micros busyReplyThreshold(RedisConnection& conn);

}  // namespace rl
