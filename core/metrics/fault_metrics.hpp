#pragma once
// Metrics of a storm per fault window (`--fault`): what the decisions sent
// during each fault were, who decided them, how long they took, and how soon
// the store answered again after the fault ended.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/error_names.hpp"
#include "limiter/time.hpp"
#include "storm/decision_record.hpp"
#include "storm/fault_schedule.hpp"

namespace rl {

/// The decisions of one algorithm made during one fault window (the store was asked in
/// [start, end); a send due earlier but made late counts where it was made).
struct FaultWindowMetrics {
  FaultWindow window;              ///< the fault and when it took effect / ended
  std::int64_t decisions = 0;      ///< decisions made in [start, end)
  std::int64_t admitted = 0;       ///< let through (policy admissions included)
  std::int64_t denied = 0;         ///< refused (policy denials included)
  std::int64_t errors = 0;         ///< the store failed
  std::array<std::int64_t, kErrorCodeCount> errorsByCause{};  ///< errors per ErrorCode (index = the code)
  std::int64_t policyAdmitted = 0; ///< the failure policy decided (store down) and admitted
  std::int64_t policyDenied = 0;   ///< the failure policy decided and denied
  std::int64_t maxLatencyUs = 0;   ///< worst, from intended send to answer
  std::int64_t p99LatencyUs = 0;   ///< nearest-rank 99th percentile
  std::int64_t overBound = 0;      ///< answered later than the bound (command timeout + slack)
  std::int64_t recoveryUs = -1;    ///< from the window's end to the first decision without error; -1 = none seen
};

/// Slack on top of the command timeout for "answered in time" (scheduling on a busy machine).
inline constexpr Micros kFaultAnswerSlack{50'000};

/// Metrics of algorithm index `algo` (-1 = every algorithm) in each window. A window
/// with endUs -1 lasts to the run's end. `answerBound` is the latency counted as late.
std::vector<FaultWindowMetrics> computeFaultMetrics(std::span<const FaultWindow> windows,
                                                    std::span<const DecisionRecord> records, int algo,
                                                    Micros answerBound);

}  // namespace rl
