#pragma once
// The run document, written once for the CLI and the window: `run --json`
// (the contract's {"runs":[…], "failover"?, "trace"?}) and the CSV of every
// decision. The window's JSON export is this document, field for field.

#include <string>
#include <vector>

#include "common/json.hpp"
#include "metrics/storm_metrics.hpp"
#include "storm/experiment.hpp"
#include "storm/failover_report.hpp"

namespace rl {

/// The trace a run replayed: path, format, counts, bad lines.
Json traceJson(const Trace& trace);

/// One run's entries: {"runs":[one per algorithm], "trace"?}.
Json runJson(const StormSpec& spec, const StormOutcome& outcome, const std::vector<AlgorithmMetrics>& metrics);

/// Decisions of `b` that differ from `a` (same plan, same order), lane by lane.
struct DecisionDifferences {
  std::int64_t count = 0;               ///< decisions with a different allowed bit
  std::int64_t compared = 0;            ///< decisions compared
  std::vector<std::int64_t> firstAtUs;  ///< intended times of the first few
};
DecisionDifferences decisionDifferences(const ExperimentRun& a, const ExperimentRun& b);

/// A failover run's report with each key's overshoot from the run's `metrics` (computeMetrics).
FailoverReport failoverWithOvershoot(const ExperimentRun& run, const std::vector<AlgorithmMetrics>& metrics);

/// computeMetrics of each run of `result`, in run order.
std::vector<std::vector<AlgorithmMetrics>> experimentMetrics(const ExperimentResult& result);

/// The whole document of an experiment: every run's entries (with faults, the
/// differences from the first run, and each WAIT setting's failover when there
/// are several), the first run's failover report, the trace.
Json runDocument(const ExperimentResult& result);
/// The same from metrics already computed (experimentMetrics), so a caller that also draws them computes them once.
Json runDocument(const ExperimentResult& result, const std::vector<std::vector<AlgorithmMetrics>>& metrics);

/// The CSV's columns, for the CLI's --csv and the window's export alike.
inline constexpr std::string_view kDecisionsCsvHeader =
    "intended_us,actual_us,replica,client,algorithm,allowed,remaining,retry_after_us,latency_us,error,late,level";

/// Writes every decision of one run to `path`, kDecisionsCsvHeader's columns (and
/// key, the client's name, for a trace). Slow for millions: off the GUI thread. The
/// error names the file.
Result<void> writeDecisionsCsv(const std::string& path, const StormSpec& spec, const StormOutcome& outcome);

}  // namespace rl
