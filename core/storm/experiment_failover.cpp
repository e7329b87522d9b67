// The experiment's failover storms: the scripted plan (break, kill, promote,
// rejoin) on a private Redis Cluster, or a natural failover (natural:kill,
// sentinel-failover) on a private Sentinel set or Cluster; once per WAIT
// setting, each on a fresh private set when asked.
#include <optional>

#include "storm/cluster_failover.hpp"
#include "storm/experiment.hpp"
#include "storm/natural_failover.hpp"
#include "storm/store_factory.hpp"

namespace rl {

namespace {
// The private set one failover run acts on: fresh (owned here) or the caller's.
struct FailoverSet {
  std::optional<ManagedRedisCluster> ownCluster;    ///< started for this run
  std::optional<ManagedRedisSentinel> ownSentinel;  ///< started for this run
  ManagedRedisCluster* cluster = nullptr;           ///< the one acted on, if a cluster
  ManagedRedisSentinel* sentinel = nullptr;         ///< the one acted on, if Sentinels
  RedisEndpoint endpoint;                           ///< where the storm talks to
};

bool wantsCluster(const StormSpec& spec) {
  return spec.failover->kind == FailoverPlan::Kind::Scripted || spec.redisUrl == kPrivateClusterWord;
}

std::string setName(const StormSpec& spec) {
  return wantsCluster(spec) ? "a private Redis Cluster (3 masters + 3 replicas)"
                            : "a private Sentinel set (1 master, 2 replicas, 3 Sentinels)";
}

Result<void> openSet(const StormSpec& spec, const ExperimentTarget& target, bool fresh, FailoverSet& set) {
  if (!fresh) {
    set.cluster = target.cluster;
    set.sentinel = target.sentinel;
    set.endpoint = target.endpoint;
    return {};
  }
  if (wantsCluster(spec)) {
    auto c = ManagedRedisCluster::start();
    if (!c) return c.error();
    set.ownCluster.emplace(std::move(c).value());
    set.cluster = &*set.ownCluster;
    set.endpoint = set.cluster->endpoint();
  } else {
    auto s = ManagedRedisSentinel::start();
    if (!s) return s.error();
    set.ownSentinel.emplace(std::move(s).value());
    set.sentinel = &*set.ownSentinel;
    set.endpoint = set.sentinel->endpoint();
  }
  return {};
}

Result<FailoverRun> runOn(FailoverSet& set, const StormSpec& run, const FailoverWatch& watch, RetryCounter retries) {
  if (run.failover->kind != FailoverPlan::Kind::Scripted)
    return runNaturalFailoverStorm(run, NaturalFailoverTarget{set.endpoint, set.cluster, set.sentinel}, watch,
                                   std::move(retries));
  if (!set.cluster)
    return invalidArgument("--failover " + failoverPlanText(*run.failover) +
                           " needs --redis cluster (a private cluster whose nodes RateLab may kill)");
  auto factory = storeFactoryFor(run, set.endpoint);
  if (!factory) return factory.error();
  return runFailoverStorm(run, *factory, *set.cluster, watch, std::move(retries));
}
}  // namespace

Result<ExperimentResult> runFailoverExperiment(const StormSpec& spec, const ExperimentTarget& target,
                                               ExperimentObserver& observer, const std::atomic<bool>* cancel,
                                               RetryCounter retries) {
  const std::vector<StormSpec> runs = experimentRuns(spec);
  const bool fresh = target.freshFailoverSets || runs.size() > 1;
  ExperimentResult result;
  result.spec = spec;
  int firstLane = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (cancel && cancel->load()) break;
    if (fresh) observer.notice("run " + std::to_string(i + 1) + " of " + std::to_string(runs.size()) + ": starting " + setName(spec));
    FailoverSet set;
    if (auto ok = openSet(spec, target, fresh, set); !ok)
      return Error{ok.error().code, "the failover storm needs " + setName(spec) + ": " + ok.error().message};
    StormSpec run = runs[i];
    if (fresh) run.redisUrl = set.endpoint.toString();
    if (i == 0) observer.started(plannedSpan(run));
    std::size_t marksSeen = 0;
    bool begun = false, switchShown = false;
    std::vector<DecisionRecord> buffer;
    FailoverWatch watch;
    watch.cancel = cancel;
    watch.onProgress = [&observer](const StormProgress& p) { observer.progressed(p); };
    watch.onNoMaster = [&observer, i](Micros from, Micros to) {
      if (i == 0) observer.withoutMaster(from, to);  // the lanes' time axis is the first run's
    };
    watch.onPoll = [&](StormRunner& runner) {
      if (!begun) {
        begun = true;
        StormRunner* now[] = {&runner};
        observer.running(now);
        observer.runBegins(static_cast<int>(i), run.redisUrl.empty() ? set.endpoint.toString() : run.redisUrl);
      }
      if (cancel && cancel->load()) runner.cancel();
      if (i == 0)
        for (const auto marks = runner.markers(); marksSeen < marks.size(); ++marksSeen) observer.quotaChanged(marks[marksSeen]);
      buffer.clear();
      runner.takeRecords(buffer);
      if (!buffer.empty()) observer.records(firstLane, runner, buffer);
      if (!switchShown && runner.progress().elapsed >= run.failover->killAt) {  // the live marker: the switch begins
        switchShown = true;
        observer.notice(failoverPlanText(*run.failover) + " at " + std::to_string(runner.progress().elapsed.count() / 1000) +
                        " ms: the master goes, Redis elects a successor");
      }
    };
    auto done = runOn(set, run, watch, retries);
    observer.running({});
    if (!done) {
      if (result.runs.empty()) return done.error();
      observer.failed(done.error());
      break;
    }
    observer.progressed(done->outcome.progress);
    result.runs.push_back({run, firstLane, std::move(done->outcome), std::nullopt, std::move(done->report)});
    firstLane += static_cast<int>(run.algorithms.size());
    if (result.runs.back().outcome.cancelled) break;
  }
  result.cancelled = (cancel && cancel->load()) || (!result.runs.empty() && result.runs.back().outcome.cancelled);
  return result;
}

}  // namespace rl
