#pragma once
// INFO commandstats: calls and server-side microseconds per command, so a
// benchmark can report what a decision costs inside Redis (the delta over a
// run). Server-wide: other clients of the same server count too.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "redis/redis_connection.hpp"

namespace rl {

/// One command's counters (cumulative since start or CONFIG RESETSTAT).
struct CommandStat {
  std::int64_t calls = 0;  ///< times run (commands run by scripts count too)
  std::int64_t usec = 0;   ///< microseconds spent running it
};

/// Command name (lower case, e.g. "evalsha") -> counters.
using CommandStats = std::map<std::string, CommandStat>;

/// Parses the text of INFO commandstats ("cmdstat_get:calls=3,usec=7,..." lines).
Result<CommandStats> parseCommandStats(std::string_view info);

/// Reads INFO commandstats.
Result<CommandStats> readCommandStats(RedisConnection& conn);

/// Server microseconds per decision between two readings: the time of the
/// script commands (EVALSHA, EVAL, FCALL: one per decision; the commands they
/// run are inside that time) when any ran, else of every command but INFO
/// (read-decide-write backends). 0 when no decision was made.
double redisMicrosPerDecision(const CommandStats& before, const CommandStats& after, std::int64_t decisions);

}  // namespace rl
