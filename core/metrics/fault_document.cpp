#include "metrics/fault_document.hpp"

#include <cmath>
#include <string>

namespace rl {

double faultMs(std::int64_t us) { return std::round(static_cast<double>(us) / 10.0) / 100.0; }

Micros faultAnswerBound(const FaultRun& run) { return run.commandTimeout + kFaultAnswerSlack; }

Json faultsJson(const StormSpec& spec, const StormOutcome& o, const FaultRun& run, int algo) {
  Json out = Json::array();
  for (const FaultWindowMetrics& m : computeFaultMetrics(run.windows, o.records, algo, faultAnswerBound(run))) {
    Json f;
    f["fault"] = m.window.label;
    f["kind"] = faultKindName(m.window.kind);
    f["reached"] = m.window.reached;
    f["start_ms"] = faultMs(m.window.startUs);
    f["end_ms"] = m.window.endUs < 0 ? Json(nullptr) : Json(faultMs(m.window.endUs));
    f["decisions"] = m.decisions;
    f["admitted"] = m.admitted;
    f["denied"] = m.denied;
    f["errors"] = m.errors;
    Json causes = Json::object();
    for (int c = 0; c < kErrorCodeCount; ++c)
      if (m.errorsByCause[static_cast<std::size_t>(c)] > 0)
        causes[errorCodeName(static_cast<ErrorCode>(c))] = m.errorsByCause[static_cast<std::size_t>(c)];
    f["errors_by_cause"] = std::move(causes);
    Json policy;
    policy["name"] = failurePolicyName(spec.resilience.onRedisError);
    policy["admitted"] = m.policyAdmitted;
    policy["denied"] = m.policyDenied;
    f["policy"] = std::move(policy);
    Json lat;
    lat["p99"] = m.p99LatencyUs;
    lat["max"] = m.maxLatencyUs;
    f["latency_us"] = std::move(lat);
    f["answer_bound_ms"] = faultMs(faultAnswerBound(run).count());
    f["answered_late"] = m.overBound;
    f["all_answered_in_time"] = m.overBound == 0;
    f["recovery_ms"] = m.recoveryUs < 0 ? Json(nullptr) : Json(faultMs(m.recoveryUs));
    out.push_back(std::move(f));
  }
  return out;
}

Json faultActionsJson(const FaultRun& run) {
  Json out = Json::array();
  for (const FaultAction& a : run.actions) {
    Json j;
    j["what"] = a.what;
    j["planned_ms"] = faultMs(a.plannedUs);
    j["done_ms"] = a.doneUs < 0 ? Json(nullptr) : Json(faultMs(a.doneUs));
    if (!a.error.empty()) j["error"] = a.error;
    out.push_back(std::move(j));
  }
  return out;
}

bool faultActionsOk(const FaultRun& run) {
  for (const FaultAction& a : run.actions)
    if (a.doneUs >= 0 && !a.error.empty()) return false;
  return true;
}

}  // namespace rl
