#include "ui/workers/storm_worker.hpp"

#include <algorithm>
#include <exception>

#include "metrics/over_limit.hpp"
#include "metrics/run_document.hpp"
#include "metrics/storm_metrics.hpp"
#include "redis/redis_url.hpp"
#include "storm/model_replay.hpp"
#include "storm/quota_schedule.hpp"
#include "storm/store_factory.hpp"
#include "ui/charts/lane_model.hpp"
#include "ui/charts/lane_runs.hpp"
#include "ui/qt_text.hpp"

namespace rl::ui {

namespace {
// One summary row; `failover` is the run's report (with overshoot), shared by its rows.
AlgorithmResult rowOf(const ExperimentRun& run, const AlgorithmMetrics& m, const StormLane* lane,
                      const std::optional<FailoverReport>& failover) {
  AlgorithmResult r;
  r.algorithm = m.algorithm;
  r.label = lane ? qs(lane->label) : qs(algorithmName(m.algorithm));
  r.backend = qs(backendName(run.spec.backend));
  r.offered = m.offered;
  r.admitted = m.admitted;
  r.denied = m.denied;
  r.errors = m.errors;
  r.policy = run.spec.resilience.onRedisError;
  r.limit = run.outcome.markers.empty() ? run.spec.quota.limit : run.outcome.markers.back().limit;  // at the end
  r.maxAdmittedInWindow = m.maxAdmittedInWindow;
  r.overshoot = m.overshoot;
  r.overLimitAdmitted = m.overLimitAdmitted;
  r.worstClient = m.worstClient;
  r.worstAtUs = m.worstAtUs;
  r.bound = qs(overLimitBoundText(m.algorithm, run.spec.quota));
  r.p50us = m.latency.p50;
  r.p99us = m.latency.p99;
  r.failover = failover;
  return r;
}
}  // namespace

StormResult summarize(std::shared_ptr<const ExperimentResult> experiment) {
  StormResult out;
  if (!experiment) return out;
  out.cancelled = experiment->cancelled;
  const auto lanes = experimentLanes(experiment->spec);
  for (const ExperimentRun& run : experiment->runs) {
    out.durationMs = std::max(out.durationMs, run.outcome.wallDuration.count() / 1000);
    std::size_t lane = static_cast<std::size_t>(run.firstLane);
    const auto metrics = computeMetrics(run.spec, run.outcome);
    const auto failover = run.failover ? std::optional(failoverWithOvershoot(run, metrics)) : std::nullopt;
    const auto agreement = run.spec.modelsTarget  // the run document's figures (metrics/run_document.cpp)
                               ? modelAgreement(experiment->runs.front().outcome, run.outcome, run.spec.algorithms.size())
                               : std::vector<ModelAgreement>{};
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      out.algorithms.push_back(rowOf(run, metrics[i], lane < lanes.size() ? &lanes[lane] : nullptr, failover));
      if (i < agreement.size()) {
        out.algorithms.back().targetCompared = agreement[i].compared;
        out.algorithms.back().targetDiffering = agreement[i].differing;
      }
      ++lane;
    }
  }
  out.experiment = std::move(experiment);
  return out;
}

// The window's observer: records become lane samples, the rest signals.
class StormWorker::Observer final : public ExperimentObserver {
 public:
  explicit Observer(StormWorker& w) : w_(w) {}
  void started(Micros span) override { emit w_.started(span.count()); }
  void sendsBegin(std::int64_t origin) override { emit w_.sendsBegin(origin); }
  void quotaChanged(const QuotaMarker& m) override { w_.model_.markQuota(m.atUs, quotaOf(m)); }
  void withoutMaster(Micros from, Micros to) override { w_.model_.markWithoutMaster(from.count(), to.count()); }
  void running(std::span<StormRunner* const> runners) override {
    std::lock_guard lock(w_.runnerMutex_);
    w_.runners_.assign(runners.begin(), runners.end());
  }
  void records(int firstLane, const StormRunner& runner, std::vector<DecisionRecord>& batch) override {
    const int algos = static_cast<int>(runner.spec().algorithms.size());
    w_.model_.setClockOrigin(firstLane, algos, runner.clockOriginUs());
    const bool exact = runner.spec().clock == ClockMode::Virtual;  // decided at the planned time
    std::vector<std::vector<LaneSample>> lanes(static_cast<std::size_t>(algos));
    for (const DecisionRecord& r : batch)
      if (r.algorithm() < lanes.size())
        lanes[r.algorithm()].push_back(laneSampleOf(r, exact));
    for (std::size_t i = 0; i < lanes.size(); ++i) w_.model_.push(firstLane + static_cast<int>(i), std::move(lanes[i]));
    emit w_.dataReady();
  }
  void progressed(const StormProgress& p) override { emit w_.progressed(p); }
  void failed(const Error& e) override { emit w_.errorOccurred(qs(e.message)); }
  void notice(const std::string& text) override { emit w_.notice(qs(text)); }
  void runBegins(int run, const std::string& url) override { emit w_.failoverRunBegins(run, qs(url)); }

 private:
  StormWorker& w_;
};

StormWorker::StormWorker(LaneModel& model) : model_(model) {}

Result<void> StormWorker::setQuota(const Quota& quota) {
  std::lock_guard lock(runnerMutex_);
  if (runners_.empty()) return invalidArgument("no storm is running");
  for (StormRunner* r : runners_)
    if (auto ok = r->setQuota(quota); !ok) return ok;
  return {};
}

void StormWorker::run(const StormSpec& spec, ManagedRedisServer* server) {
  try {
    ExperimentTarget target;
    target.server = server;
    target.freshFailoverSets = true;  // the window's failover presets start their own private sets
    if (isRedisBackend(spec.backend) && !spec.failover) {
      auto endpoint = resolveRedisUrl(spec.redisUrl);
      if (!endpoint) {
        emit errorOccurred(qs(endpoint.error().message));
        return void(emit finished(StormResult{{}, 0, true, {}}));
      }
      target.endpoint = std::move(endpoint).value();
    }
    Observer observer(*this);
    auto result = runExperiment(spec, target, observer, &cancel_, storeRetries);
    {
      std::lock_guard lock(runnerMutex_);
      runners_.clear();
    }
    emit dataReady();
    if (!result) {
      emit errorOccurred(qs(result.error().message));
      return void(emit finished(StormResult{{}, 0, true, {}}));
    }
    emit finished(summarize(std::make_shared<const ExperimentResult>(std::move(result).value())));
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The storm failed: %1").arg(QString::fromUtf8(e.what())));
    emit finished(StormResult{{}, 0, true, {}});
  } catch (...) {
    emit errorOccurred(tr("The storm failed with an unknown error"));
    emit finished(StormResult{{}, 0, true, {}});
  }
}

}  // namespace rl::ui
