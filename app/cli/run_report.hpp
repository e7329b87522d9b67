#pragma once
// How `ratelab-cli run` shows a finished storm: a readable table, the
// contract's JSON document, and a CSV with every decision.

#include <cstdio>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "metrics/storm_metrics.hpp"
#include "storm/cluster_failover.hpp"
#include "storm/storm_runner.hpp"

namespace rl::cli {

/// The trace a run replayed: path, format, counts, bad lines.
Json traceJson(const Trace& trace);


Json runJson(const StormSpec& spec, const StormOutcome& outcome, const std::vector<AlgorithmMetrics>& metrics);

/// The summary table: one header line about the storm, one row per algorithm.
void printRunTable(std::FILE* out, const StormSpec& spec, const StormOutcome& outcome,
                   const std::vector<AlgorithmMetrics>& metrics);

/// The failover's cost, a few lines under the run table (failoverSentences).
void printFailover(std::FILE* out, const FailoverReport& report);

/// Writes every decision to `path`: intended_us, actual_us, replica, client,
/// algorithm, allowed, remaining, retry_after_us, latency_us. The error names the file.
Result<void> writeDecisionsCsv(const std::string& path, const StormSpec& spec, const StormOutcome& outcome);

}  // namespace rl::cli
