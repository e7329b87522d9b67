#pragma once
// What a fault schedule did to a run, as the run document's "faults" and
// "fault_actions": per fault window and algorithm, the decisions sent during
// it, admitted / denied / errors by cause, the failure policy's share, max and
// p99 latency, answers later than the command timeout + slack, and the time to
// the first good answer after it.

#include "common/json.hpp"
#include "metrics/fault_metrics.hpp"
#include "storm/fault_injector.hpp"
#include "storm/storm_runner.hpp"

namespace rl {

/// The answer bound of a run: command timeout + kFaultAnswerSlack.
Micros faultAnswerBound(const FaultRun& run);

/// The "faults" array of one algorithm's run entry (algorithm index `algo`).
Json faultsJson(const StormSpec& spec, const StormOutcome& outcome, const FaultRun& run, int algo);

/// The "fault_actions" array: every step, when it was due and done, and any error.
Json faultActionsJson(const FaultRun& run);

/// True when every step of the schedule was carried out (none failed).
bool faultActionsOk(const FaultRun& run);

/// Milliseconds with two decimals, as the fault report shows them.
double faultMs(std::int64_t us);

}  // namespace rl
