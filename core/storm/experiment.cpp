#include "storm/experiment.hpp"

#include <algorithm>
#include <memory>

#include "storm/failover_watch.hpp"
#include "storm/model_replay.hpp"
#include "storm/store_factory.hpp"
#include "storm/traffic_plan.hpp"

namespace rl {

std::vector<StormSpec> experimentRuns(const StormSpec& spec, bool* parallel) {
  const bool sideBySide = !spec.comparePolicies.empty();
  if (parallel) *parallel = sideBySide;
  if (spec.failover) return waitRuns(spec, spec.compareWaitReplicas.empty() ? std::vector<int>{spec.resilience.waitReplicas}
                                                                             : spec.compareWaitReplicas);
  return sideBySide ? policyRuns(spec, spec.comparePolicies) : comparedRuns(spec);
}

std::vector<StormLane> experimentLanes(const StormSpec& spec) {
  if (spec.failover && !spec.compareWaitReplicas.empty()) return waitLanes(spec, spec.compareWaitReplicas);
  if (spec.failover) return stormLanes(spec);
  return spec.comparePolicies.empty() ? stormLanes(spec) : policyLanes(spec, spec.comparePolicies);
}

namespace {
// Runs that start together (the policies side by side) or one run of a sequence.
struct Group {
  std::vector<std::unique_ptr<StormRunner>> runners;  ///< one per run of the group
  std::vector<int> firstLanes;                        ///< each runner's first lane
  std::vector<std::int64_t> origins;                  ///< each runner's start on the steady clock (written by its driver)
};

// Takes each runner's new records to the observer; quota marks from the group's first runner.
class Drain {
 public:
  Drain(Group& g, ExperimentObserver& o) : group_(g), observer_(o) {}
  void operator()(StormRunner& r) {
    std::size_t i = 0;
    while (i < group_.runners.size() && group_.runners[i].get() != &r) ++i;
    if (i == group_.runners.size()) return;
    if (i == 0) {
      const auto marks = r.markers();
      for (; marksSeen_ < marks.size(); ++marksSeen_) observer_.quotaChanged(marks[marksSeen_]);
    }
    buffer_.clear();
    r.takeRecords(buffer_);
    if (!buffer_.empty()) observer_.records(group_.firstLanes[i], r, buffer_);
  }

 private:
  Group& group_;
  ExperimentObserver& observer_;
  std::vector<DecisionRecord> buffer_;  ///< reused between polls
  std::size_t marksSeen_ = 0;           ///< quota marks already reported
};

// A fault run seen from one runner: its windows shifted to that runner's own origin.
FaultRun shiftedFaults(const FaultRun& run, std::int64_t shiftUs) {
  FaultRun out = run;
  for (FaultWindow& w : out.windows) {
    w.startUs -= shiftUs;
    if (w.endUs >= 0) w.endUs -= shiftUs;
  }
  for (FaultAction& a : out.actions) {
    a.plannedUs -= shiftUs;
    if (a.doneUs >= 0) a.doneUs -= shiftUs;
  }
  return out;
}
}  // namespace

Result<ExperimentResult> runExperiment(const StormSpec& spec, const ExperimentTarget& target,
                                       ExperimentObserver& observer, const std::atomic<bool>* cancel,
                                       RetryCounter retries) {
  if (spec.failover) return runFailoverExperiment(spec, target, observer, cancel, std::move(retries));
  if (!spec.faults.empty() && !target.server)
    return invalidArgument("--fault acts on the redis-server RateLab starts itself: allowed with the managed server only");
  bool parallel = false;
  std::vector<StormSpec> runs = experimentRuns(spec, &parallel);
  std::vector<int> firstLanes;
  for (int lane = 0; const StormSpec& r : runs) {
    firstLanes.push_back(lane);
    lane += static_cast<int>(r.algorithms.size());
  }
  std::optional<FaultInjector> injector;  // the one schedule, timed from the first run's start
  if (!spec.faults.empty()) injector.emplace(*target.server, spec.faults);
  ExperimentResult result;
  result.spec = spec;
  observer.started(plannedSpan(spec));
  const std::size_t groupSize = parallel ? runs.size() : 1;
  for (std::size_t begin = 0; begin < runs.size(); begin += groupSize) {
    if (begin > 0 && cancel && cancel->load()) break;
    if (runs[begin].modelsTarget && (result.runs.empty() || result.runs.front().outcome.records.empty())) break;  // nothing to model
    Group g;
    g.origins.assign(groupSize, 0);
    for (std::size_t i = begin; i < begin + groupSize; ++i) {
      // An http storm's model run decides the target run's own arrivals (model_replay.hpp).
      if (runs[i].modelsTarget && !result.runs.empty()) runs[i] = withArrivals(runs[i], result.runs.front().outcome);
      auto factory = storeFactoryFor(runs[i], target.endpoint);
      if (!factory) return factory.error();
      auto runner = std::make_unique<StormRunner>(runs[i], std::move(factory).value());
      if (retries) runner->setRetryCounter(retries);
      std::int64_t* origin = &g.origins[i - begin];
      const bool first = i == 0;
      runner->setOnStart([origin, first, &observer, &injector](std::int64_t startSteadyUs) {
        *origin = startSteadyUs;
        if (!first) return;
        if (injector) injector->start(startSteadyUs);
        observer.sendsBegin(startSteadyUs);
      });
      g.runners.push_back(std::move(runner));
      g.firstLanes.push_back(firstLanes[i]);
    }
    for (auto& r : g.runners)
      if (auto ok = r->start(); !ok) return ok.error();
    std::vector<StormRunner*> watched;
    for (auto& r : g.runners) watched.push_back(r.get());
    observer.running(watched);
    Drain drain(g, observer);
    const FailoverWatch watch{[&observer](const StormProgress& p) { observer.progressed(p); },
                              [&drain](StormRunner& r) { drain(r); }, cancel, {}};
    waitForRuns(watched, Micros::max(), watch);
    for (StormRunner* r : watched) r->wait();
    observer.running({});
    for (StormRunner* r : watched) drain(*r);
    bool stop = false;
    for (std::size_t i = 0; i < g.runners.size(); ++i) {
      StormOutcome outcome = g.runners[i]->outcome();
      if (outcome.failure) observer.failed(*outcome.failure);
      stop = stop || outcome.cancelled || outcome.failure.has_value();
      result.runs.push_back({runs[begin + i], g.firstLanes[i], std::move(outcome), std::nullopt, std::nullopt});
    }
    if (begin == 0 && !result.runs.empty()) observer.progressed(result.runs.front().outcome.progress);
    if (injector && begin == 0) {  // the schedule belongs to the first group of runs
      injector->stop();
      const FaultRun done{injector->windows(), injector->actions(), target.endpoint.commandTimeout};
      for (std::size_t i = 0; i < g.runners.size(); ++i)
        result.runs[i].faults = shiftedFaults(done, g.origins[i] - g.origins[0]);
    }
    if (stop) break;
  }
  result.cancelled = (cancel && cancel->load()) ||
                     (!result.runs.empty() && result.runs.back().outcome.cancelled);
  return result;
}

bool ranOnRedis(const ExperimentResult& result) {
  return std::any_of(result.runs.begin(), result.runs.end(), [](const ExperimentRun& r) { return isRedisBackend(r.spec.backend); });
}

}  // namespace rl
