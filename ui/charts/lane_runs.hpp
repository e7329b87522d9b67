#pragma once
// From decision records to what the lanes draw: one record as a LaneSample
// (the storm worker feeds the live lanes with it), and every lane of a
// finished experiment with its own quota, cost and clock origin (the run
// history shows a past run again, or two runs side by side, from these).

#include <vector>

#include "storm/decision_record.hpp"
#include "storm/experiment.hpp"
#include "ui/charts/lane_model.hpp"

namespace rl::ui {

/// One decision as a lane sample; `exactClock` (virtual clock): decided at the planned
/// time, so no service time is kept.
LaneSample laneSampleOf(const DecisionRecord& record, bool exactClock);

/// Every lane of every run of `result`, in lane order (experimentLanes(result.spec)):
/// its decisions and the quotas its run went through.
std::vector<LaneRun> laneRunsOf(const ExperimentResult& result);

}  // namespace rl::ui
