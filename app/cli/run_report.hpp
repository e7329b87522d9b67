#pragma once
// How `ratelab-cli run` shows a finished storm as text: the summary table and
// the failover's sentences (the JSON and CSV are core's run document).

#include <cstdio>
#include <string>
#include <vector>

#include "metrics/run_document.hpp"
#include "storm/cluster_failover.hpp"
#include "storm/storm_runner.hpp"

namespace rl::cli {

/// The summary table: one header line about the storm, one row per algorithm.
void printRunTable(std::FILE* out, const StormSpec& spec, const StormOutcome& outcome,
                   const std::vector<AlgorithmMetrics>& metrics);

/// The failover's cost, a few lines under the run table (failoverSentences).
void printFailover(std::FILE* out, const FailoverReport& report);

}  // namespace rl::cli
