#pragma once
// The Redis a command talks to: --redis URL (redis://, redis+cluster:// or
// redis+sentinel://), the word `cluster` (a private 3-master + 3-replica cluster
// that lives as long as the command), the word `sentinel` (a private master, two
// replicas and three Sentinels, likewise), or the embedded default (127.0.0.1:6379 if it answers, else
// a private redis-server). Checked at start: exit 3 names the address and reason.

#include <optional>
#include <string>
#include <string_view>

#include "redis/cluster/managed_redis_cluster.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "redis/redis_url.hpp"

namespace rl::cli {

/// A reachable Redis, and the private server behind it when one was started.
struct RedisTarget {
  RedisEndpoint endpoint;                    ///< where to connect
  std::optional<ManagedRedisServer> server;  ///< owned private server, if any
  std::optional<ManagedRedisCluster> cluster;  ///< owned private cluster (--redis cluster), if any
  std::optional<ManagedRedisSentinel> sentinel;  ///< owned private Sentinel set (--redis sentinel), if any
  /// True when RateLab started the Redis itself (its own signal handler stops it).
  bool managed() const { return server || cluster || sentinel; }
};

/// The --redis value that always starts a private redis-server (never probes :6379).
inline constexpr std::string_view kManagedRedis = "managed";

/// Resolves `url` (empty = embedded default, "managed" = a private server
/// started with `managed`, "cluster" = a private cluster, "sentinel" = a private Sentinel set) and checks it answers
/// (PING; a cluster: its slot map). Returns kExitOk and fills `out`, or prints
/// one line on stderr and returns kExitBadInput (bad URL) or kExitNoRedis
/// (cannot reach it).
int resolveRedisTarget(const std::optional<std::string>& url, std::string_view command,
                       std::optional<RedisTarget>& out, const ManagedServerOptions& managed = {});

/// The version of the Redis at `endpoint` (INFO server), "?" when it does not answer: for reports.
std::string redisVersion(const RedisEndpoint& endpoint);

}  // namespace rl::cli
