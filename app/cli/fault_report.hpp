#pragma once
// How `ratelab-cli run --fault` shows what each fault did: per fault window
// and algorithm, the decisions sent during it, admitted / denied / errors by
// cause, the failure policy's share, max and p99 latency, answers later than
// the command timeout + slack, and the time to the first good answer after it.

#include <cstdio>
#include <vector>

#include "common/json.hpp"
#include "metrics/fault_metrics.hpp"
#include "storm/fault_injector.hpp"
#include "storm/storm_runner.hpp"

namespace rl::cli {

/// What the injector did during one run.
struct FaultRun {
  std::vector<FaultWindow> windows;  ///< measured windows (FaultInjector::windows)
  std::vector<FaultAction> actions;  ///< every step (FaultInjector::actions)
  Micros commandTimeout{100'000};    ///< the stores' command timeout
};

/// The answer bound of a run: command timeout + kFaultAnswerSlack.
Micros faultAnswerBound(const FaultRun& run);

/// The "faults" array of one algorithm's run entry (algorithm index `algo`).
Json faultsJson(const StormSpec& spec, const StormOutcome& outcome, const FaultRun& run, int algo);

/// The "fault_actions" array: every step, when it was due and done, and any error.
Json faultActionsJson(const FaultRun& run);

/// The text report: one line per fault window and algorithm, then failed steps.
void printFaultReport(std::FILE* out, const StormSpec& spec, const StormOutcome& outcome, const FaultRun& run);

/// True when every step of the schedule was carried out (none failed).
bool faultActionsOk(const FaultRun& run);

}  // namespace rl::cli
