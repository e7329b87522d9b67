#include "run_report.hpp"

#include "common/printable_text.hpp"
#include "metrics/over_limit.hpp"
#include "storm/compared_runs.hpp"

namespace rl::cli {

void printRunTable(std::FILE* out, const StormSpec& spec, const StormOutcome& o,
                   const std::vector<AlgorithmMetrics>& metrics) {
  if (spec.traceData && !spec.modelsTarget) std::fprintf(out, "trace: %s\n", spec.traceData->summary().c_str());
  const std::string backend = backendLabel(spec);
  std::fprintf(out, "storm: %s backend, %d replica(s), %d client(s), %lld requests (%s), %s clock, quota %s\n",
               backend.c_str(), spec.replicas, spec.clients,
               static_cast<long long>(o.progress.planned / static_cast<std::int64_t>(std::max<std::size_t>(spec.algorithms.size(), 1))),
               spec.traceData ? "trace" : std::string(patternName(spec.pattern)).c_str(), std::string(clockModeName(spec.clock)).c_str(),
               spec.quota.toString().c_str());
  std::fprintf(out, "%-16s %9s %9s %9s %7s %11s %9s %8s %8s %8s %12s\n", "algorithm", "offered", "admitted",
               "denied", "errors", "max/window", "overshoot", "p50 us", "p99 us", "max us", "decisions/s");
  for (const AlgorithmMetrics& m : metrics)
    std::fprintf(out, "%-16s %9lld %9lld %9lld %7lld %11lld %8.2fx %8lld %8lld %8lld %12.0f\n",
                 laneLabel(spec, m.algorithm, false).c_str(), static_cast<long long>(m.offered),
                 static_cast<long long>(m.admitted), static_cast<long long>(m.denied),
                 static_cast<long long>(m.errors), static_cast<long long>(m.maxAdmittedInWindow), m.overshoot,
                 static_cast<long long>(m.latency.p50), static_cast<long long>(m.latency.p99),
                 static_cast<long long>(m.latency.max), m.throughputRps);
  for (const AlgorithmMetrics& m : metrics)
    if (m.overLimitAdmitted > 0)
      std::fprintf(out, "%s: %lld admission(s) over its limit (%s); worst: client %u at %.3f s, %.2fx\n",
                   laneLabel(spec, m.algorithm, false).c_str(), static_cast<long long>(m.overLimitAdmitted),
                   overLimitBoundText(m.algorithm, spec.quota).c_str(), m.worstClient,
                   static_cast<double>(m.worstAtUs) / 1e6, m.overshoot);
  for (const AlgorithmMetrics& m : metrics)
    if (m.degraded > 0)
      std::fprintf(out, "%s: %lld decisions degraded (%s down), --on-redis-error %s admitted %lld of them\n",
                   std::string(algorithmName(m.algorithm)).c_str(), static_cast<long long>(m.degraded),
                   spec.backend == Backend::Http ? "HTTP target" : "Redis",
                   std::string(failurePolicyName(spec.resilience.onRedisError)).c_str(), static_cast<long long>(m.degradedAdmitted));
  std::fprintf(out, "wall %.1f ms; late %lld, dropped %lld%s\n", static_cast<double>(o.wallDuration.count()) / 1000.0,
               static_cast<long long>(o.progress.late), static_cast<long long>(o.progress.dropped),
               o.cancelled ? "; CANCELLED" : "");
  if (o.firstDecisionError) std::fprintf(out, "first error: %s\n", printableText(o.firstDecisionError->message).c_str());
}

void printFailover(std::FILE* out, const FailoverReport& r) {
  for (const std::string& line : failoverSentences(r)) std::fprintf(out, "%s\n", line.c_str());
}

}  // namespace rl::cli
