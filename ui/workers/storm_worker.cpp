#include "ui/workers/storm_worker.hpp"

#include <QThread>
#include <chrono>
#include <exception>

#include "metrics/storm_metrics.hpp"
#include "redis/redis_url.hpp"
#include "storm/compared_runs.hpp"
#include "storm/store_factory.hpp"
#include "storm/traffic_plan.hpp"
#include "ui/charts/lane_model.hpp"

namespace rl::ui {

namespace {
constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr int kProgressEvery = 5;  // polls

/// Planned length of the run's timeline in us (0 when it depends on the store's speed).
std::int64_t plannedSpan(const StormSpec& spec) {
  if (spec.traceData)
    return static_cast<std::int64_t>(static_cast<double>(spec.traceData->spanUs()) /
                                     (spec.clock == ClockMode::Virtual ? 1.0 : replaySpeed(spec)));
  if (spec.duration.count() > 0) return spec.duration.count();
  if (spec.rate > 0 && spec.requests > 0) return static_cast<std::int64_t>(1e6 * static_cast<double>(spec.requests) / spec.rate);
  return 0;
}
}  // namespace

Result<StoreFactory> makeStoreFactory(const StormSpec& spec) {
  if (spec.backend == Backend::Http) return invalidArgument("backend: http storms are started from ratelab-cli; allowed here memory, redis-lua, redis-naive, redis-watch");
  if (spec.backend == Backend::Memory) return storeFactoryFor(spec, RedisEndpoint{});
  auto endpoint = resolveRedisUrl(spec.redisUrl);
  if (!endpoint) return endpoint.error();
  return storeFactoryFor(spec, *endpoint);
}

StormResult summarize(const StormSpec& spec, StormOutcome outcome, bool beside) {
  StormResult out;
  out.durationMs = outcome.wallDuration.count() / 1000;
  out.cancelled = outcome.cancelled;
  StormSpec last = spec;
  if (!outcome.markers.empty()) {
    const QuotaMarker& m = outcome.markers.back();
    last.quota.limit = m.limit;
    last.quota.window = Micros{m.windowUs};
  }
  const auto metrics = computeMetrics(last, outcome.records, outcome.wallDuration);
  out.records = std::make_shared<const std::vector<DecisionRecord>>(std::move(outcome.records));
  const QString backend = QString::fromUtf8(backendName(spec.backend).data(), static_cast<qsizetype>(backendName(spec.backend).size()));
  for (const AlgorithmMetrics& m : metrics) {
    AlgorithmResult r;
    r.algorithm = m.algorithm;
    r.label = QString::fromStdString(laneLabel(spec, m.algorithm, beside));
    r.backend = backend;
    r.offered = m.offered;
    r.admitted = m.admitted;
    r.denied = m.denied;
    r.errors = m.errors;
    r.limit = last.quota.limit;
    r.maxAdmittedInWindow = m.maxAdmittedInWindow;
    r.overshoot = m.overshoot;
    r.p50us = m.latency.p50;
    r.p99us = m.latency.p99;
    out.algorithms.push_back(r);
  }
  return out;
}

StormWorker::StormWorker(LaneModel& model) : model_(model) {}

Result<void> StormWorker::setQuota(const Quota& quota) {
  std::lock_guard lock(runnerMutex_);
  if (!runner_) return invalidArgument("no storm is running");
  return runner_->setQuota(quota);
}

void StormWorker::run(const StormSpec& spec) {
  try {
    runGuarded(spec);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The storm failed: %1").arg(QString::fromUtf8(e.what())));
    emit finished(StormResult{{}, 0, true, {}});
  } catch (...) {
    emit errorOccurred(tr("The storm failed with an unknown error"));
    emit finished(StormResult{{}, 0, true, {}});
  }
}

bool StormWorker::drain(StormRunner& runner, int laneOffset, std::vector<DecisionRecord>& buffer, std::size_t& marksSeen) {
  buffer.clear();
  runner.takeRecords(buffer);
  const auto marks = runner.markers();
  for (; marksSeen < marks.size(); ++marksSeen) {
    const QuotaMarker& m = marks[marksSeen];
    Quota q = Quota::perWindow(m.limit, Micros{m.windowUs});
    if (m.refillPerSecond > 0) q.refillPerSecond = m.refillPerSecond;
    model_.markQuota(m.atUs, q);
  }
  if (buffer.empty()) return false;
  std::vector<std::vector<LaneSample>> lanes(runner.spec().algorithms.size());
  for (const DecisionRecord& r : buffer)
    if (r.algorithm < lanes.size()) lanes[r.algorithm].push_back({r.atUs, r.level, r.allowed(), r.error()});
  for (std::size_t i = 0; i < lanes.size(); ++i) model_.push(laneOffset + static_cast<int>(i), std::move(lanes[i]));
  return true;
}

void StormWorker::runGuarded(const StormSpec& spec) {
  cancel_.store(false);
  StormResult total;
  int laneOffset = 0;
  bool first = true;
  const auto runs = comparedRuns(spec);
  for (const StormSpec& run : runs) {  // the storm, then the same storm beside it
    if (!first && cancel_.load()) break;
    auto result = runOne(run, laneOffset, first, runs.size() > 1);
    if (!result) {
      total.cancelled = true;
      break;
    }
    for (AlgorithmResult& r : result->algorithms) total.algorithms.push_back(std::move(r));
    total.durationMs += result->durationMs;
    total.cancelled = total.cancelled || result->cancelled;
    if (first) total.records = std::move(result->records);
    laneOffset += static_cast<int>(run.algorithms.size());
    first = false;
  }
  emit finished(total);
}

std::optional<StormResult> StormWorker::runOne(const StormSpec& spec, int laneOffset, bool first, bool beside) {
  auto factory = makeStoreFactory(spec);
  if (!factory) {
    emit errorOccurred(QString::fromStdString(factory.error().message));
    return std::nullopt;
  }
  StormRunner runner(spec, *factory);
  runner.setRetryCounter(storeRetries);
  if (auto ok = runner.start(); !ok) {
    emit errorOccurred(QString::fromStdString(ok.error().message));
    return std::nullopt;
  }
  {
    std::lock_guard lock(runnerMutex_);
    runner_ = &runner;
  }
  if (first) emit started(plannedSpan(spec));
  std::vector<DecisionRecord> buffer;
  std::size_t marksSeen = 0;
  for (int poll = 0; !runner.finished(); ++poll) {
    if (cancel_.load()) runner.cancel();
    QThread::msleep(static_cast<unsigned long>(kPoll.count()));
    if (drain(runner, laneOffset, buffer, marksSeen)) emit dataReady();
    if (poll % kProgressEvery == 0) emit progressed(runner.progress());
  }
  runner.wait();
  {
    std::lock_guard lock(runnerMutex_);
    runner_ = nullptr;
  }
  drain(runner, laneOffset, buffer, marksSeen);
  emit dataReady();
  StormOutcome outcome = runner.outcome();
  emit progressed(outcome.progress);
  if (outcome.failure) emit errorOccurred(QString::fromStdString(outcome.failure->message));
  return summarize(spec, std::move(outcome), beside);
}

}  // namespace rl::ui
