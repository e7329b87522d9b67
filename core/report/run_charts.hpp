#pragma once
// The charts of one run, as the window's lanes draw them: per algorithm, what
// the worst client had admitted (and denied) in the trailing window (t - W, t]
// against the limit in force, with the over-limit bands of core's one
// judgement (metrics/over_limit.hpp); and the level of every algorithm. Time
// in s, ms or µs to fit the span, or by decision number when a virtual-clock
// burst is faster than one decision per µs (metrics/time_unit.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/storm_metrics.hpp"
#include "report/svg_chart.hpp"
#include "storm/experiment.hpp"

namespace rl {

/// "1 admission", "3 admissions".
std::string admissionsText(std::int64_t n);

/// The admitted/denied lane of each algorithm of `run` (spec order), then one level chart.
/// `metrics` is computeMetrics(run.spec, run.outcome); `columns` the decimation width.
std::vector<SvgChart> runCharts(const ExperimentRun& run, const std::vector<AlgorithmMetrics>& metrics, int columns = 900);

}  // namespace rl
