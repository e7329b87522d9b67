#include "ui/workers/storm_worker.hpp"

#include <QThread>
#include <algorithm>
#include <chrono>
#include <exception>

#include "metrics/over_limit.hpp"
#include "metrics/storm_metrics.hpp"
#include "redis/redis_url.hpp"
#include "storm/compared_runs.hpp"
#include "storm/store_factory.hpp"
#include "storm/traffic_plan.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

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
  const auto metrics = computeMetrics(spec, outcome);
  out.records = std::make_shared<const std::vector<DecisionRecord>>(std::move(outcome.records));
  const QString backend = qs(backendName(spec.backend));
  for (const AlgorithmMetrics& m : metrics) {
    AlgorithmResult r;
    r.algorithm = m.algorithm;
    r.label = QString::fromStdString(laneLabel(spec, m.algorithm, beside));
    r.backend = backend;
    r.offered = m.offered;
    r.admitted = m.admitted;
    r.denied = m.denied;
    r.errors = m.errors;
    r.policy = spec.onRedisError;
    r.limit = last.quota.limit;
    r.maxAdmittedInWindow = m.maxAdmittedInWindow;
    r.overshoot = m.overshoot;
    r.overLimitAdmitted = m.overLimitAdmitted;
    r.worstClient = m.worstClient;
    r.worstAtUs = m.worstAtUs;
    r.bound = qs(overLimitBoundText(m.algorithm, spec.quota));
    r.p50us = m.latency.p50;
    r.p99us = m.latency.p99;
    out.algorithms.push_back(r);
  }
  return out;
}

StormWorker::StormWorker(LaneModel& model) : model_(model) {}

Result<void> StormWorker::setQuota(const Quota& quota) {
  std::lock_guard lock(runnerMutex_);
  if (runners_.empty()) return invalidArgument("no storm is running");
  for (StormRunner* r : runners_)
    if (auto ok = r->setQuota(quota); !ok) return ok;
  return {};
}

void StormWorker::appendRun(StormResult& total, StormResult part, bool first) {
  for (AlgorithmResult& r : part.algorithms) total.algorithms.push_back(std::move(r));
  total.durationMs += part.durationMs;
  total.cancelled = total.cancelled || part.cancelled;
  if (first) total.records = std::move(part.records);
}

template <class Fn>
void StormWorker::guarded(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The storm failed: %1").arg(QString::fromUtf8(e.what())));
    emit finished(StormResult{{}, 0, true, {}});
  } catch (...) {
    emit errorOccurred(tr("The storm failed with an unknown error"));
    emit finished(StormResult{{}, 0, true, {}});
  }
}

void StormWorker::run(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  guarded([&] { policies.empty() ? runGuarded(spec) : runSideBySide(spec, policies); });
}

void StormWorker::runFailovers(const StormSpec& spec, const std::vector<int>& waitReplicas) {
  guarded([&] { runFailoverLanes(spec, waitReplicas); });
}

bool StormWorker::drain(StormRunner& runner, int laneOffset, std::vector<DecisionRecord>& buffer, std::size_t* marksSeen) {
  buffer.clear();
  runner.takeRecords(buffer);
  const auto marks = marksSeen ? runner.markers() : std::vector<QuotaMarker>{};
  for (; marksSeen && *marksSeen < marks.size(); ++*marksSeen) {
    const QuotaMarker& m = marks[*marksSeen];
    Quota q = Quota::perWindow(m.limit, Micros{m.windowUs});
    if (m.refillPerSecond > 0) q.refillPerSecond = m.refillPerSecond;
    model_.markQuota(m.atUs, q);
  }
  if (buffer.empty()) return false;
  model_.setClockOrigin(laneOffset, static_cast<int>(runner.spec().algorithms.size()), runner.clockOriginUs());
  const bool exact = runner.spec().clock == ClockMode::Virtual;  // decided at the planned time
  std::vector<std::vector<LaneSample>> lanes(runner.spec().algorithms.size());
  for (const DecisionRecord& r : buffer)
    if (r.algorithm() < lanes.size())
      lanes[r.algorithm()].push_back({r.atUs(), r.level(), r.allowed(), r.error(), r.client(), exact ? 0 : r.serviceUs()});
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
    appendRun(total, std::move(*result), first);
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
  if (first) runner.setOnStart([this](std::int64_t startSteadyUs) { emit sendsBegin(startSteadyUs); });
  if (auto ok = runner.start(); !ok) {
    emit errorOccurred(QString::fromStdString(ok.error().message));
    return std::nullopt;
  }
  {
    std::lock_guard lock(runnerMutex_);
    runners_ = {&runner};
  }
  if (first) emit started(plannedSpan(spec).count());
  std::vector<DecisionRecord> buffer;
  std::size_t marksSeen = 0;
  for (int poll = 0; !runner.finished(); ++poll) {
    if (cancel_.load()) runner.cancel();
    QThread::msleep(static_cast<unsigned long>(kPoll.count()));
    if (drain(runner, laneOffset, buffer, &marksSeen)) emit dataReady();
    if (poll % kProgressEvery == 0) emit progressed(runner.progress());
  }
  runner.wait();
  {
    std::lock_guard lock(runnerMutex_);
    runners_.clear();
  }
  drain(runner, laneOffset, buffer, &marksSeen);
  emit dataReady();
  StormOutcome outcome = runner.outcome();
  emit progressed(outcome.progress);
  if (outcome.failure) emit errorOccurred(QString::fromStdString(outcome.failure->message));
  return summarize(spec, std::move(outcome), beside);
}

void StormWorker::runSideBySide(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  cancel_.store(false);
  const auto runs = policyRuns(spec, policies);
  const auto lanes = policyLanes(spec, policies);
  std::vector<std::unique_ptr<StormRunner>> runners;
  for (const StormSpec& run : runs) {
    auto factory = makeStoreFactory(run);
    if (!factory) {
      emit errorOccurred(QString::fromStdString(factory.error().message));
      return void(emit finished(StormResult{{}, 0, true, {}}));
    }
    runners.push_back(std::make_unique<StormRunner>(run, *factory));
    runners.back()->setRetryCounter(storeRetries);
  }
  for (auto& r : runners)
    if (auto ok = r->start(); !ok) {
      emit errorOccurred(QString::fromStdString(ok.error().message));
      return void(emit finished(StormResult{{}, 0, true, {}}));
    }
  {
    std::lock_guard lock(runnerMutex_);
    for (auto& r : runners) runners_.push_back(r.get());
  }
  emit started(plannedSpan(spec).count());
  const int algos = static_cast<int>(spec.algorithms.size());
  std::vector<DecisionRecord> buffer;
  std::size_t marksSeen = 0;
  const auto drainAll = [&] {
    bool any = false;
    for (std::size_t i = 0; i < runners.size(); ++i)  // quota marks: the same on every run, taken from the first
      any = drain(*runners[i], static_cast<int>(i) * algos, buffer, i == 0 ? &marksSeen : nullptr) || any;
    return any;
  };
  const auto allFinished = [&] { return std::all_of(runners.begin(), runners.end(), [](const auto& r) { return r->finished(); }); };
  for (int poll = 0; !allFinished(); ++poll) {
    if (cancel_.load())
      for (auto& r : runners) r->cancel();
    QThread::msleep(static_cast<unsigned long>(kPoll.count()));
    if (drainAll()) emit dataReady();
    if (poll % kProgressEvery == 0) emit progressed(runners.front()->progress());
  }
  for (auto& r : runners) r->wait();
  {
    std::lock_guard lock(runnerMutex_);
    runners_.clear();
  }
  drainAll();
  emit dataReady();
  StormResult total;
  std::size_t lane = 0;
  for (std::size_t i = 0; i < runners.size(); ++i) {
    StormOutcome outcome = runners[i]->outcome();
    if (i == 0) emit progressed(outcome.progress);
    if (outcome.failure) emit errorOccurred(QString::fromStdString(outcome.failure->message));
    StormResult part = summarize(runs[i], std::move(outcome));
    for (AlgorithmResult& r : part.algorithms) {
      if (lane < lanes.size()) r.label = QString::fromStdString(lanes[lane++].label);
      total.algorithms.push_back(std::move(r));
    }
    total.durationMs = std::max(total.durationMs, part.durationMs);
    total.cancelled = total.cancelled || part.cancelled;
    if (i == 0) total.records = std::move(part.records);
  }
  emit finished(total);
}

}  // namespace rl::ui
