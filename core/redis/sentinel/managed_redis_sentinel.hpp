#pragma once
// ManagedRedisSentinel: a private Sentinel set for `--redis sentinel`, the
// window's URL word `sentinel` and tests: one master, two replicas
// (`--replicaof`) and three Sentinels (`redis-server sentinel.conf
// --sentinel`, quorum 2, down-after-milliseconds 1000), every process a
// ManagedRedisServer on a free loopback port in its own temp dir, so start,
// stop, SIGKILL, cleanup on SIGINT/SIGTERM and PR_SET_PDEATHSIG are the ones
// of managed_redis_server.hpp. The destructor stops them all and removes
// their dirs. start() returns once every Sentinel names the master and knows
// both replicas and the other Sentinels, so a failover can happen at once.

#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/redis_url.hpp"

namespace rl {

/// The word that asks for a private Sentinel set where a Redis URL goes.
inline constexpr std::string_view kPrivateSentinelWord = "sentinel";
/// The service (master) name of a private Sentinel set.
inline constexpr std::string_view kPrivateSentinelService = "ratelab";

/// How to start a private Sentinel set.
struct ManagedSentinelOptions {
  int replicas = 2;                  ///< 0 to 4 replicas of the master
  int sentinels = 3;                 ///< 1 to 7 Sentinels (quorum: a majority of them)
  Micros downAfter{1'000'000};       ///< down-after-milliseconds
  Micros failoverTimeout{10'000'000};  ///< failover-timeout (also the least gap between two failovers)
  Micros startTimeout{20'000'000};   ///< how long starting may take
  std::string executable;            ///< redis-server path; empty = search PATH
};

/// A private Sentinel set; see the file comment. Move-only.
class ManagedRedisSentinel {
 public:
  /// Starts the master, its replicas and the Sentinels. Unavailable naming the process or step that failed.
  static Result<ManagedRedisSentinel> start(const ManagedSentinelOptions& options = {});

  /// `redis+sentinel://127.0.0.1:<s1>,...,127.0.0.1:<sN>/ratelab`, default timeouts.
  RedisEndpoint endpoint() const;
  /// The data nodes: the first master, then its replicas (roles as started; failovers change them).
  std::vector<ManagedRedisServer>& nodes() { return nodes_; }
  /// The Sentinels.
  std::vector<ManagedRedisServer>& sentinels() { return sentinels_; }
  /// The data node listening on `port`, or null.
  ManagedRedisServer* nodeOnPort(int port);
  /// Every pid (data nodes and Sentinels) that runs now.
  std::vector<int> pids() const;
  /// Every temp dir of the set.
  std::vector<std::string> dirs() const;

 private:
  ManagedRedisSentinel() = default;
  Result<void> waitUntilReady(const ManagedSentinelOptions& options) const;

  std::vector<ManagedRedisServer> nodes_;      ///< master, then replicas
  std::vector<ManagedRedisServer> sentinels_;  ///< the Sentinels
};

}  // namespace rl
