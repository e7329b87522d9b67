#pragma once
// Metrics of one storm, per algorithm, derived from the recorded decisions:
// counts per time bin, the level series, the exact sliding-window truth and
// overshoot, latency percentiles and throughput.

#include <cstdint>
#include <span>
#include <vector>

#include "limiter/algorithm.hpp"
#include "limiter/time.hpp"
#include "metrics/chart_decimation.hpp"
#include "metrics/latency_summary.hpp"
#include "storm/decision_record.hpp"
#include "storm/quota_schedule.hpp"
#include "storm/storm_runner.hpp"
#include "storm/storm_spec.hpp"

namespace rl {

/// Admissions over the limit close together in time: [fromUs, toUs], us since the start.
struct OverLimitSpan {
  std::int64_t fromUs = 0;  ///< first over-limit admission
  std::int64_t toUs = 0;    ///< last one
};

/// Decisions of one algorithm in one time bin.
struct TimelineBin {
  std::int64_t startUs = 0;   ///< bin start, us since the run's start
  std::int64_t admitted = 0;  ///< let through
  std::int64_t denied = 0;    ///< refused
  std::int64_t errors = 0;    ///< decided by the failure policy
};

/// Everything the summary table, --json and the charts show for one algorithm.
struct AlgorithmMetrics {
  Algorithm algorithm = Algorithm::FixedWindow;  ///< which algorithm
  std::int64_t offered = 0;    ///< decisions recorded
  std::int64_t admitted = 0;   ///< let through (fail-open admissions included)
  std::int64_t denied = 0;     ///< refused (fail-closed denials included)
  std::int64_t errors = 0;     ///< store errors among them
  std::int64_t degraded = 0;   ///< decided by the failure policy while the store was down (outages)
  std::int64_t degradedAdmitted = 0;  ///< of those, admitted (open: all; closed: none; local: the replicas' memory)
  std::int64_t late = 0;       ///< sends that started late
  std::int64_t maxAdmittedInWindow = 0;  ///< worst admitted cost in any (t - W, t] of one client
  /// Over limit (metrics/over_limit.hpp): the largest need / limit of any admission, judged
  /// per client against the algorithm's own promise; > 1 means some admission broke it.
  double overshoot = 0;
  std::int64_t overLimitAdmitted = 0;  ///< admissions over the limit, all clients
  std::uint32_t worstClient = 0;       ///< the client of the worst admission
  std::int64_t worstAtUs = -1;         ///< when it was admitted (-1: nothing admitted)
  std::vector<OverLimitSpan> overLimitSpans;  ///< when admissions went over the limit (any client)
  LatencySummary latency;      ///< from intended send (real clocks) or service time (virtual)
  double throughputRps = 0;    ///< decisions per wall second
  std::int64_t binUs = 0;      ///< width of each timeline bin
  std::vector<TimelineBin> bins;  ///< admitted / denied / errors per bin, from 0
};

/// A bin width from the 1-2-5 series (>= 1 ms) giving about 100 bins over `span`.
Micros chooseBinSize(Micros span);

/// Per-algorithm metrics (spec order) of `records` (any order). `wallDuration`
/// gives throughput; `spec` gives the limit, window, cost and algorithms.
/// The quota is the spec's with its scheduled changes; fixed windows align to 0.
std::vector<AlgorithmMetrics> computeMetrics(const StormSpec& spec, std::span<const DecisionRecord> records,
                                             Micros wallDuration);
/// The same for a finished run: its quota changes (scheduled and live) and its clock's origin.
std::vector<AlgorithmMetrics> computeMetrics(const StormSpec& spec, const StormOutcome& outcome);
/// The same under the quotas the run went through; `clockOriginUs` is the
/// limiters' clock at its start (aligns fixed windows for the over-limit judgement).
std::vector<AlgorithmMetrics> metricsUnder(const StormSpec& spec, std::span<const DecisionRecord> records,
                                           Micros wallDuration, const std::vector<TimedQuota>& quotas,
                                           std::int64_t clockOriginUs);

/// Level series of algorithm index `algo` (client `client`, or every client when
/// negative): (seconds since start, level), sorted by time, for charts.
std::vector<ChartPoint> levelSeries(std::span<const DecisionRecord> records, int algo, int client = -1);

}  // namespace rl
