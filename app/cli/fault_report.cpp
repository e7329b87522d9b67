#include "fault_report.hpp"

#include <cmath>
#include <string>

namespace rl::cli {

namespace {
double ms(std::int64_t us) { return faultMs(us); }

std::string causesText(const FaultWindowMetrics& m) {
  std::string s;
  for (int c = 0; c < kErrorCodeCount; ++c)
    if (m.errorsByCause[static_cast<std::size_t>(c)] > 0)
      s += (s.empty() ? "" : " ") + std::string(errorCodeName(static_cast<ErrorCode>(c))) + "=" +
           std::to_string(m.errorsByCause[static_cast<std::size_t>(c)]);
  return s.empty() ? "-" : s;
}

std::string windowText(const FaultWindow& w) {
  if (!w.reached) return "not reached";
  return std::to_string(w.startUs / 1000) + "-" + (w.endUs < 0 ? std::string("end") : std::to_string(w.endUs / 1000));
}
}  // namespace

void printFaultReport(std::FILE* out, const StormSpec& spec, const StormOutcome& o, const FaultRun& run) {
  std::fprintf(out, "faults (--on-redis-error %s; in time = answered within the %lld ms command timeout + %lld ms):\n",
               std::string(failurePolicyName(spec.resilience.onRedisError)).c_str(),
               static_cast<long long>(run.commandTimeout.count() / 1000),
               static_cast<long long>(kFaultAnswerSlack.count() / 1000));
  std::fprintf(out, "%-28s %-14s %-16s %9s %8s %7s %7s %13s %8s %8s %7s %10s  %s\n", "fault", "window ms", "algorithm",
               "decisions", "admitted", "denied", "errors", "policy adm/den", "p99 ms", "max ms", "late", "recovered",
               "errors by cause");
  for (std::size_t a = 0; a < spec.algorithms.size(); ++a) {
    for (const FaultWindowMetrics& m :
         computeFaultMetrics(run.windows, o.records, static_cast<int>(a), faultAnswerBound(run))) {
      const std::string policy = std::to_string(m.policyAdmitted) + "/" + std::to_string(m.policyDenied);
      char recovered[32] = "-";
      if (m.recoveryUs >= 0) std::snprintf(recovered, sizeof recovered, "%.1f ms", ms(m.recoveryUs));
      std::fprintf(out, "%-28s %-14s %-16s %9lld %8lld %7lld %7lld %13s %8.2f %8.2f %7lld %10s  %s\n",
                   m.window.label.c_str(), windowText(m.window).c_str(),
                   std::string(algorithmName(spec.algorithms[a])).c_str(), static_cast<long long>(m.decisions),
                   static_cast<long long>(m.admitted), static_cast<long long>(m.denied),
                   static_cast<long long>(m.errors), policy.c_str(), ms(m.p99LatencyUs), ms(m.maxLatencyUs),
                   static_cast<long long>(m.overBound), recovered, causesText(m).c_str());
    }
  }
  for (const FaultAction& a : run.actions)
    if (!a.error.empty()) std::fprintf(out, "fault step %s: %s\n", a.what.c_str(), a.error.c_str());
}

}  // namespace rl::cli
