#pragma once
// The Redis a command talks to: --redis URL, or the embedded default
// (127.0.0.1:6379 if it answers, else a private redis-server that lives as
// long as the command). Checked at start: exit 3 names the address and reason.

#include <optional>
#include <string>
#include <string_view>

#include "redis/managed_redis_server.hpp"
#include "redis/redis_url.hpp"

namespace rl::cli {

/// A reachable Redis, and the private server behind it when one was started.
struct RedisTarget {
  RedisEndpoint endpoint;                    ///< where to connect
  std::optional<ManagedRedisServer> server;  ///< owned private server, if any
};

/// The --redis value that always starts a private redis-server (never probes :6379).
inline constexpr std::string_view kManagedRedis = "managed";

/// Resolves `url` (empty = embedded default, "managed" = a private server
/// started with `managed`) and checks it answers PING. Returns kExitOk and
/// fills `out`, or prints one line on stderr and returns kExitBadInput (bad
/// URL) or kExitNoRedis (cannot reach it).
int resolveRedisTarget(const std::optional<std::string>& url, std::string_view command,
                       std::optional<RedisTarget>& out, const ManagedServerOptions& managed = {});

}  // namespace rl::cli
