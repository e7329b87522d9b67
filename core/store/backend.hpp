#pragma once
// Backend: where limiter state lives (`--backend`). Below storm and redis so
// both can name it without depending on each other.

#include <optional>
#include <string>
#include <string_view>

namespace rl {

/// Where limiter state lives (`--backend`).
enum class Backend {
  Memory,      ///< one in-process store per replica: right for one replica, leaks N x across N
  RedisLua,    ///< one EVALSHA per decision: atomic
  RedisNaive,  ///< read, decide in C++, write back: two round trips, races
  RedisWatch,  ///< WATCH / MULTI / EXEC with retries: atomic, costs retries
  Http,        ///< requests go to an HTTP limiter: RateLab's replicas or any other (core/http)
  RedisScript, ///< the user's own Lua limiter script (--script), one EVALSHA per decision
};

std::string_view backendName(Backend b);                  ///< "memory", "redis-lua", ...
std::optional<Backend> parseBackend(std::string_view s);  ///< nullopt if unknown
std::string backendChoices();                             ///< "memory, redis-lua, ... or http"
bool isRedisBackend(Backend b);                           ///< redis-lua, redis-naive, redis-watch or redis-script

}  // namespace rl
