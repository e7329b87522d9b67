#pragma once
// How `ratelab-cli run --fault` shows what each fault did: per fault window
// and algorithm, the decisions sent during it, admitted / denied / errors by
// cause, the failure policy's share, max and p99 latency, answers later than
// the command timeout + slack, and the time to the first good answer after it.

#include <cstdio>
#include <vector>

#include "metrics/fault_document.hpp"
#include "storm/fault_injector.hpp"
#include "storm/storm_runner.hpp"

namespace rl::cli {

/// The text report: one line per fault window and algorithm, then failed steps.
void printFaultReport(std::FILE* out, const StormSpec& spec, const StormOutcome& outcome, const FaultRun& run);

}  // namespace rl::cli
