#pragma once
// A storm through a failover that Redis performs itself, measured
// (`--failover natural:kill@MS`, `--failover sentinel-failover@MS`):
//   - natural:kill SIGKILLs the master that holds the storm's first key (a
//     private Sentinel set's or a private Cluster's) and lets the Sentinels,
//     or the Cluster after cluster-node-timeout, elect a replica;
//   - sentinel-failover sends `SENTINEL FAILOVER <service>` (any
//     redis+sentinel:// endpoint: the old master stays up, demoted).
// The storm's connections follow on their own: a Sentinel endpoint asks the
// Sentinels again on every reconnect, a Cluster endpoint re-reads the slot map.
// The run watches for the election meanwhile (the Sentinels naming another
// master whose ROLE is master, or the key's slot served by another master).
//
// After the run, every algorithm's keys are read on the new master with plain
// commands (storm/admits_in_state.hpp) and set against what the clients saw
// admitted over the whole run (the limiter's admits, not the failure
// policy's): lost writes = admitted - held. Counted for sliding_log while its
// window outlasts the run, fixed_window and sliding_counter while the run
// stays inside one window; the others say why not. Also reported: when the
// master was killed and the successor seen, the time to the first answer,
// the failure policy's decisions from the kill on, NOSCRIPT reloads
// (redis-lua: the promoted replica has no scripts). Overshoot comes from the
// run's metrics (the caller sets FailoverKeyCount::overshoot).

#include "common/result.hpp"
#include "redis/cluster/managed_redis_cluster.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "storm/cluster_failover.hpp"

namespace rl {

/// What a natural failover acts on: the storm's endpoint and the private processes behind it.
struct NaturalFailoverTarget {
  RedisEndpoint endpoint;                    ///< redis+sentinel:// or redis+cluster://
  ManagedRedisCluster* cluster = nullptr;    ///< the private cluster behind a redis+cluster:// endpoint, if any
  ManagedRedisSentinel* sentinel = nullptr;  ///< the private Sentinel set behind a redis+sentinel:// endpoint, if any
};

/// How long a run waits for an election after the kill before reporting none.
inline constexpr Micros kElectionWait{30'000'000};

/// Runs `spec` (spec.failover natural:kill or sentinel-failover, a Redis backend) on `target`,
/// making its own stores (to count NOSCRIPT reloads). InvalidArgument when the plan cannot run
/// there (natural:kill without a private set or cluster, sentinel-failover without Sentinels);
/// Unavailable when a step fails.
Result<FailoverRun> runNaturalFailoverStorm(const StormSpec& spec, const NaturalFailoverTarget& target,
                                            const FailoverWatch& watch = {}, RetryCounter retries = {});

}  // namespace rl
