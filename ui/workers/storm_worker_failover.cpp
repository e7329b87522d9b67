// StormWorker's failover runs: the "Failover loses writes" preset, without
// and with WAIT, each on its own fresh private Redis Cluster.
#include "redis/cluster/managed_redis_cluster.hpp"
#include "storm/cluster_failover.hpp"
#include "storm/compared_runs.hpp"
#include "storm/store_factory.hpp"
#include "storm/traffic_plan.hpp"
#include "ui/workers/storm_worker.hpp"

namespace rl::ui {

void StormWorker::runFailoverLanes(const StormSpec& spec, const std::vector<int>& waitReplicas) {
  cancel_.store(false);
  const auto runs = waitRuns(spec, waitReplicas);
  const auto lanes = waitLanes(spec, waitReplicas);
  StormResult total;
  int laneOffset = 0;
  std::size_t lane = 0;
  for (std::size_t i = 0; i < runs.size() && !cancel_.load(); ++i) {
    const QString name = QString::fromStdString(lanes[lane].label);
    emit notice(tr("%1: starting a private Redis Cluster (3 masters + 3 replicas)").arg(name));
    auto cluster = ManagedRedisCluster::start();
    if (!cluster) {
      emit errorOccurred(tr("The failover storm needs a private Redis Cluster: %1")
                             .arg(QString::fromStdString(cluster.error().message)));
      total.cancelled = true;
      break;
    }
    StormSpec run = runs[i];
    const RedisEndpoint endpoint = cluster->endpoint();
    run.redisUrl = endpoint.toString();
    auto factory = storeFactoryFor(run, endpoint);
    if (!factory) {
      emit errorOccurred(QString::fromStdString(factory.error().message));
      total.cancelled = true;
      break;
    }
    if (i == 0) emit started(plannedSpan(run).count());
    emit notice(tr("%1: storm on %2, failover %3").arg(name, QString::fromStdString(run.redisUrl),
                                                       QString::fromStdString(failoverPlanText(*run.failover))));
    std::vector<DecisionRecord> buffer;
    std::size_t marksSeen = 0;
    int polls = 0;
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
    };
    auto done = runFailoverStorm(run, *factory, *cluster, watch, storeRetries);
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
