#pragma once
// An experiment: one storm and its variants, run by one runner for the CLI
// and the window alike (as heaptrack's printer and GUI sit on one analysis).
//
// The variants of a storm spec (experimentRuns):
//   compare_backend   the same storm on other backends, one after the other;
//   compare_policies  the same storm once per failure policy, all at the same
//                     time, so one outage hits every policy.
//   compare_wait_replicas  a failover storm once per WAIT setting, one after
//                     the other, each on a fresh private cluster or Sentinel set.
// Its one schedule of events: spec.faults (kill, restart, pause, latency, oom,
// readonly), done to the managed redis-server from the first run's start;
// spec.quotaChanges (the runner applies them); spec.failover (break, kill,
// promote, rejoin, natural elections: cluster_failover.hpp and
// natural_failover.hpp). All are driven by the one poll loop.
//
// Threading. runExperiment() blocks the calling thread; the storms run on
// their runners' threads. The observer is called on the calling thread, from
// the one poll loop (failover_watch.hpp), except sendsBegin().

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "redis/cluster/managed_redis_cluster.hpp"
#include "redis/managed_redis_server.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "redis/redis_url.hpp"
#include "storm/compared_runs.hpp"
#include "storm/failover_report.hpp"
#include "storm/fault_injector.hpp"
#include "storm/storm_runner.hpp"

namespace rl {

/// One run of an experiment: what ran, where its lanes start, what it recorded.
struct ExperimentRun {
  StormSpec spec;                  ///< the variant's spec (its own run tag, backend, policy)
  int firstLane = 0;               ///< the index of its first lane among all the experiment's lanes
  StormOutcome outcome;            ///< every decision and count
  std::optional<FaultRun> faults;  ///< what the fault schedule did, when it ran with this run
  std::optional<FailoverReport> failover;  ///< what the failover cost, for a failover storm
};

/// Everything an experiment produced, in run order.
struct ExperimentResult {
  StormSpec spec;                   ///< the experiment as asked (its lanes: experimentLanes(spec))
  std::vector<ExperimentRun> runs;  ///< the storm, then its variants
  bool cancelled = false;           ///< the cancel flag stopped it
};

/// Whether any run of `result` decided on Redis (a report then names the Redis version).
bool ranOnRedis(const ExperimentResult& result);

/// Where an experiment runs.
struct ExperimentTarget {
  RedisEndpoint endpoint;                ///< the Redis of the Redis backends
  ManagedRedisServer* server = nullptr;  ///< the private server a fault schedule is done to (faults need it)
  ManagedRedisCluster* cluster = nullptr;    ///< the private cluster a scripted or natural failover acts on
  ManagedRedisSentinel* sentinel = nullptr;  ///< the private Sentinel set a natural failover acts on
  /// A failover storm's runs each start a fresh private set (the window; and the CLI
  /// with compare_wait_replicas); otherwise they use `cluster` or `sentinel`.
  bool freshFailoverSets = false;
};

/// What the caller sees while an experiment runs (all on the calling thread).
class ExperimentObserver {
 public:
  virtual ~ExperimentObserver() = default;
  /// The runs are about to start: their planned span on the timeline (0 = unknown).
  virtual void started(Micros /*plannedSpan*/) {}
  /// The first run is about to send: its start on the steady clock (us). Called on that
  /// run's driver thread (the one call that is not on the calling thread).
  virtual void sendsBegin(std::int64_t /*startSteadyUs*/) {}
  /// The runners running now (empty: none): a live quota change may act on them
  /// until the next call. They are owned by the experiment.
  virtual void running(std::span<StormRunner* const> /*runners*/) {}
  /// New decisions of the run whose lanes start at `firstLane` (about every 20 ms).
  virtual void records(int /*firstLane*/, const StormRunner& /*runner*/, std::vector<DecisionRecord>& /*batch*/) {}
  /// A live quota change took effect (taken from the first run at the same time).
  virtual void quotaChanged(const QuotaMarker& /*marker*/) {}
  /// A natural failover's time without a master: from the kill to the successor (`to` -1 while none).
  virtual void withoutMaster(Micros /*from*/, Micros /*to*/) {}
  /// Progress of the first run that is still going (about every 200 ms).
  virtual void progressed(const StormProgress& /*progress*/) {}
  /// A run could not start or stopped on a store failure: one sentence.
  virtual void failed(const Error& /*error*/) {}
  /// What the experiment is doing now ("starting a private Redis Cluster", "the master goes").
  virtual void notice(const std::string& /*text*/) {}
  /// Run `run` (0-based) of a failover storm started sending, on `redisUrl`.
  virtual void runBegins(int /*run*/, const std::string& /*redisUrl*/) {}
};

/// The runs of `spec`, each in its own key space: the WAIT settings of a failover
/// storm in turn (compare_wait_replicas), the policies side by side
/// (compare_policies, run at the same time), else the backends in turn
/// (comparedRuns). `parallel` says which.
std::vector<StormSpec> experimentRuns(const StormSpec& spec, bool* parallel = nullptr);

/// The lanes of experimentRuns(spec), in order (names carry the backend or the policy).
std::vector<StormLane> experimentLanes(const StormSpec& spec);

/// A failover storm's runs (runExperiment calls it for spec.failover).
Result<ExperimentResult> runFailoverExperiment(const StormSpec& spec, const ExperimentTarget& target,
                                               ExperimentObserver& observer, const std::atomic<bool>* cancel,
                                               RetryCounter retries);

/// Runs `spec` (validated) with its variants and its fault schedule; see the file
/// comment. Returns what was recorded, also after a failure or a cancel. An error
/// only for a variant that cannot be built (a bad target) or faults without a server.
Result<ExperimentResult> runExperiment(const StormSpec& spec, const ExperimentTarget& target,
                                       ExperimentObserver& observer, const std::atomic<bool>* cancel = nullptr,
                                       RetryCounter retries = {});

}  // namespace rl
