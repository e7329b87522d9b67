#pragma once
// A storm with a failover on a managed Redis Cluster, measured: how many
// admitted writes the failover lost and what that cost in over-admission.
//
// Redis replicates asynchronously. The plan (StormSpec::failover) stops the
// replica of the master that holds the storm's first key (SIGSTOP) and kills
// its replication link (CLIENT KILL TYPE replica), so writes from then on land
// only on the master; kills the master (SIGKILL); then resumes the replica and
// promotes it (CLUSTER FAILOVER TAKEOVER). The storm's router meets a refused
// connection, re-reads the slot map and follows the slot to the new master.
//
// Lost writes = admitted decisions the limiter (not the failure policy) made
// on the key before the kill, minus the admitted entries the promoted replica
// holds (read just before promotion). Negative: writes the client saw fail
// (a WAIT timed out) that reached the replica anyway. That count is exact for sliding_log
// and fixed_window (state = admitted count) with a window longer than the
// storm; other algorithms report -1.

#include <cstdint>
#include <functional>

#include "common/result.hpp"
#include "redis/cluster/managed_redis_cluster.hpp"
#include "storm/failover_report.hpp"
#include "storm/failover_watch.hpp"
#include "storm/storm_runner.hpp"

namespace rl {

/// A storm with its outcome and the failover report.
struct FailoverRun {
  StormOutcome outcome;   ///< every decision, as runStorm returns it
  FailoverReport report;  ///< the failover's cost
};

/// Runs `spec` (spec.failover set, a Redis backend) with `factory` on
/// `cluster` and performs the plan. InvalidArgument when the plan cannot run
/// (no replica for the key's master); Unavailable when a step fails.
Result<FailoverRun> runFailoverStorm(const StormSpec& spec, StoreFactory factory, ManagedRedisCluster& cluster,
                                     const FailoverWatch& watch = {}, RetryCounter retries = {});

}  // namespace rl
