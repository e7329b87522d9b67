#include "ui/charts/lane_runs.hpp"

#include "storm/quota_schedule.hpp"

namespace rl::ui {

LaneSample laneSampleOf(const DecisionRecord& r, bool exactClock) {
  return {r.atUs(), r.level(), r.allowed(), r.error(), r.client(), exactClock ? 0 : r.serviceUs()};
}

std::vector<LaneRun> laneRunsOf(const ExperimentResult& result) {
  std::vector<LaneRun> out;
  for (const ExperimentRun& run : result.runs) {
    const std::size_t first = static_cast<std::size_t>(std::max(run.firstLane, 0));
    const std::size_t algos = run.spec.algorithms.size();
    if (out.size() < first + algos) out.resize(first + algos);
    std::vector<QuotaMark> marks;  // the runner's markers hold the scheduled changes and the live ones
    for (const TimedQuota& q : quotaTimeline(run.spec.quota, {}, run.outcome.markers)) marks.push_back({q.atUs, q.quota});
    for (std::size_t i = 0; i < algos; ++i) {
      LaneRun& lane = out[first + i];
      lane.algorithm = run.spec.algorithms[i];
      lane.marks = marks;
      lane.cost = run.spec.cost;
      lane.origin = run.outcome.clockOriginUs;
    }
    const bool exact = run.spec.clock == ClockMode::Virtual;
    for (const DecisionRecord& r : run.outcome.records)
      if (r.algorithm() < algos) out[first + r.algorithm()].samples.push_back(laneSampleOf(r, exact));
  }
  return out;
}

}  // namespace rl::ui
