// StormWorker's failover runs, each on its own fresh private set: the
// scripted plan ("Failover loses writes", without and with WAIT) on a private
// Redis Cluster; a natural failover ("Sentinel failover: what a limiter
// loses") on a private Sentinel set, or on a private Cluster when the preset
// says `"redis": "cluster"`.
#include <optional>

#include "redis/cluster/managed_redis_cluster.hpp"
#include "redis/sentinel/managed_redis_sentinel.hpp"
#include "storm/cluster_failover.hpp"
#include "storm/compared_runs.hpp"
#include "storm/natural_failover.hpp"
#include "storm/store_factory.hpp"
#include "storm/traffic_plan.hpp"
#include "ui/workers/storm_worker.hpp"

namespace rl::ui {

namespace {
// The private set one failover run needs, alive for that run.
struct FreshSet {
  std::optional<ManagedRedisCluster> cluster;    ///< scripted plans, natural:kill on "cluster"
  std::optional<ManagedRedisSentinel> sentinel;  ///< natural plans otherwise
  RedisEndpoint endpoint() const { return cluster ? cluster->endpoint() : sentinel->endpoint(); }
};

bool wantsCluster(const StormSpec& spec) {
  return spec.failover->kind == FailoverPlan::Kind::Scripted || spec.redisUrl == kPrivateClusterWord;
}

Result<FreshSet> startFreshSet(const StormSpec& spec) {
  FreshSet set;
  if (wantsCluster(spec)) {
    auto c = ManagedRedisCluster::start();
    if (!c) return c.error();
    set.cluster.emplace(std::move(c).value());
  } else {
    auto s = ManagedRedisSentinel::start();
    if (!s) return s.error();
    set.sentinel.emplace(std::move(s).value());
  }
  return set;
}

Result<FailoverRun> runOn(FreshSet& set, const StormSpec& run, const FailoverWatch& watch) {
  const RedisEndpoint endpoint = set.endpoint();
  if (run.failover->kind != FailoverPlan::Kind::Scripted)
    return runNaturalFailoverStorm(run, NaturalFailoverTarget{endpoint, set.cluster ? &*set.cluster : nullptr,
                                                              set.sentinel ? &*set.sentinel : nullptr},
                                   watch, storeRetries);
  auto factory = storeFactoryFor(run, endpoint);
  if (!factory) return factory.error();
  return runFailoverStorm(run, *factory, *set.cluster, watch, storeRetries);
}
}  // namespace

void StormWorker::runFailoverLanes(const StormSpec& spec, const std::vector<int>& waitReplicas) {
  cancel_.store(false);
  const auto runs = waitRuns(spec, waitReplicas);
  const auto lanes = waitLanes(spec, waitReplicas);
  const QString setName = wantsCluster(spec) ? tr("a private Redis Cluster (3 masters + 3 replicas)")
                                             : tr("a private Sentinel set (1 master, 2 replicas, 3 Sentinels)");
  StormResult total;
  int laneOffset = 0;
  std::size_t lane = 0;
  for (std::size_t i = 0; i < runs.size() && !cancel_.load(); ++i) {
    const QString name = QString::fromStdString(lanes[lane].label);
    emit notice(tr("%1: starting %2").arg(name, setName));
    auto set = startFreshSet(spec);
    if (!set) {
      emit errorOccurred(tr("The failover storm needs %1: %2").arg(setName, QString::fromStdString(set.error().message)));
      total.cancelled = true;
      break;
    }
    StormSpec run = runs[i];
    run.redisUrl = set->endpoint().toString();
    if (i == 0) emit started(plannedSpan(run).count());
    emit notice(tr("%1: storm on %2, failover %3").arg(name, QString::fromStdString(run.redisUrl),
                                                       QString::fromStdString(failoverPlanText(*run.failover))));
    std::vector<DecisionRecord> buffer;
    std::size_t marksSeen = 0;
    int polls = 0;
    bool switchShown = false;
    FailoverWatch watch;
    watch.onPoll = [&](StormRunner& runner) {
      if (polls == 0) {
        std::lock_guard lock(runnerMutex_);
        runners_ = {&runner};
        emit failoverRunBegins(static_cast<int>(i), QString::fromStdString(run.redisUrl));
      }
      if (cancel_.load()) runner.cancel();
      if (drain(runner, laneOffset, buffer, i == 0 ? &marksSeen : nullptr)) emit dataReady();
      if (polls++ % kProgressEvery == 0) emit progressed(runner.progress());
      if (!switchShown && runner.progress().elapsed >= run.failover->killAt) {  // the live marker: the switch begins
        switchShown = true;
        emit notice(tr("%1: %2 at %3 ms: the master goes, Redis elects a successor")
                        .arg(name, QString::fromStdString(failoverPlanText(*run.failover)))
                        .arg(runner.progress().elapsed.count() / 1000));
      }
    };
    auto done = runOn(*set, run, watch);
    {
      std::lock_guard lock(runnerMutex_);
      runners_.clear();
    }
    emit dataReady();
    if (!done) {
      emit errorOccurred(tr("%1: %2").arg(name, QString::fromStdString(done.error().message)));
      total.cancelled = true;
      break;
    }
    emit progressed(done->outcome.progress);
    StormResult part = summarize(run, std::move(done->outcome));
    for (std::size_t k = 0; k < done->report.keys.size() && k < part.algorithms.size(); ++k)
      done->report.keys[k].overshoot = part.algorithms[k].overshoot;
    for (AlgorithmResult& r : part.algorithms) {
      if (lane < lanes.size()) r.label = QString::fromStdString(lanes[lane++].label);
      r.failover = done->report;
    }
    appendRun(total, std::move(part), i == 0);
    laneOffset += static_cast<int>(run.algorithms.size());
  }
  emit finished(total);
}

}  // namespace rl::ui
