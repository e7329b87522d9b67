#include "ui/workers/storm_worker.hpp"

#include <QThread>
#include <chrono>
#include <algorithm>
#include <exception>

#include "metrics/storm_metrics.hpp"
#include "redis/redis_url.hpp"
#include "storm/store_factory.hpp"
#include "storm/traffic_plan.hpp"
#include "ui/charts/lane_model.hpp"

namespace rl::ui {

namespace {
constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr int kProgressEvery = 5;  // polls
}  // namespace

Result<StoreFactory> makeStoreFactory(const StormSpec& spec) {
  if (spec.backend == Backend::Http) return invalidArgument("backend: http storms are started from ratelab-cli; allowed here memory, redis-lua, redis-naive, redis-watch");
  if (spec.backend == Backend::Memory) return storeFactoryFor(spec, RedisEndpoint{});
  auto endpoint = resolveRedisUrl(spec.redisUrl);
  if (!endpoint) return endpoint.error();
  return storeFactoryFor(spec, *endpoint);
}

StormResult summarize(const StormSpec& spec, StormOutcome outcome) {
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
  for (const AlgorithmMetrics& m : metrics) {
    AlgorithmResult r;
    r.algorithm = m.algorithm;
    r.offered = m.offered;
    r.admitted = m.admitted;
    r.denied = m.denied;
    r.errors = m.errors;
    r.limit = last.quota.limit;
    r.maxAdmittedInWindow = m.maxAdmittedInWindow;
    r.overshoot = m.overshoot;
    r.p50us = m.latency.p50;
    r.p99us = m.latency.p99;
    r.policy = spec.onRedisError;
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

void StormWorker::run(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  try {
    runGuarded(spec, policies);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The storm failed: %1").arg(QString::fromUtf8(e.what())));
    emit finished(StormResult{{}, 0, true, {}});
  } catch (...) {
    emit errorOccurred(tr("The storm failed with an unknown error"));
    emit finished(StormResult{{}, 0, true, {}});
  }
}

bool StormWorker::drain(StormRunner& runner, int laneOffset, std::vector<DecisionRecord>& buffer,
                        std::size_t* marksSeen) {
  buffer.clear();
  runner.takeRecords(buffer);
  if (marksSeen) {  // quota marks are the same on every runner: taken from the first
    const auto marks = runner.markers();
    for (; *marksSeen < marks.size(); ++*marksSeen) {
      const QuotaMarker& m = marks[*marksSeen];
      Quota q = Quota::perWindow(m.limit, Micros{m.windowUs});
      if (m.refillPerSecond > 0) q.refillPerSecond = m.refillPerSecond;
      model_.markQuota(m.atUs, q);
    }
  }
  if (buffer.empty()) return false;
  std::vector<std::vector<LaneSample>> lanes(runner.spec().algorithms.size());
  for (const DecisionRecord& r : buffer)
    if (r.algorithm < lanes.size()) lanes[r.algorithm].push_back({r.atUs, r.level, r.allowed(), r.error()});
  for (std::size_t i = 0; i < lanes.size(); ++i) model_.push(laneOffset + static_cast<int>(i), std::move(lanes[i]));
  return true;
}

namespace {
// The storm once per policy (its own keys: "<tag>open-"), or just `spec`.
std::vector<StormSpec> policyRuns(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  if (policies.empty()) return {spec};
  std::vector<StormSpec> out;
  for (FailurePolicy p : policies) {
    StormSpec s = spec;
    s.onRedisError = p;
    s.keyTag += std::string(failurePolicyName(p)) + "-";
    out.push_back(std::move(s));
  }
  return out;
}

void failed(StormWorker& w, const QString& message) {
  emit w.errorOccurred(message);
  emit w.finished(StormResult{{}, 0, true, {}});
}
}  // namespace

void StormWorker::runGuarded(const StormSpec& spec, const std::vector<FailurePolicy>& policies) {
  cancel_.store(false);
  auto factory = makeStoreFactory(spec);
  if (!factory) return failed(*this, QString::fromStdString(factory.error().message));
  std::vector<std::unique_ptr<StormRunner>> runners;
  for (const StormSpec& s : policyRuns(spec, policies)) {
    runners.push_back(std::make_unique<StormRunner>(s, *factory));
    runners.back()->setRetryCounter(storeRetries);
  }
  for (auto& r : runners)
    if (auto ok = r->start(); !ok) return failed(*this, QString::fromStdString(ok.error().message));
  {
    std::lock_guard lock(runnerMutex_);
    for (auto& r : runners) runners_.push_back(r.get());
  }
  emit started(plannedSpan(spec).count());  // 0 for burst-like patterns: the lanes follow the decisions
  const int algos = static_cast<int>(spec.algorithms.size());
  std::vector<DecisionRecord> buffer;
  std::size_t marksSeen = 0;
  auto drainAll = [&] {
    bool any = false;
    for (std::size_t i = 0; i < runners.size(); ++i)
      any = drain(*runners[i], static_cast<int>(i) * algos, buffer, i == 0 ? &marksSeen : nullptr) || any;
    return any;
  };
  auto allFinished = [&] {
    return std::all_of(runners.begin(), runners.end(), [](const auto& r) { return r->finished(); });
  };
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
  StormResult result;
  for (std::size_t i = 0; i < runners.size(); ++i) {
    StormOutcome outcome = runners[i]->outcome();
    if (i == 0) emit progressed(outcome.progress);
    if (outcome.failure) emit errorOccurred(QString::fromStdString(outcome.failure->message));
    StormResult part = summarize(runners[i]->spec(), std::move(outcome));
    for (AlgorithmResult& row : part.algorithms) row.comparedPolicy = !policies.empty();
    if (i == 0) {
      result = std::move(part);
    } else {
      result.algorithms.insert(result.algorithms.end(), part.algorithms.begin(), part.algorithms.end());
      result.durationMs = std::max(result.durationMs, part.durationMs);
    }
  }
  emit finished(result);
}

}  // namespace rl::ui
