#include "metrics/fault_metrics.hpp"

#include <algorithm>
#include <limits>

#include "metrics/latency_summary.hpp"

namespace rl {

namespace {
FaultWindowMetrics windowMetrics(const FaultWindow& w, std::span<const DecisionRecord> records, int algo,
                                 Micros answerBound) {
  FaultWindowMetrics m;
  m.window = w;
  if (!w.reached) return m;
  const std::int64_t end = w.endUs < 0 ? std::numeric_limits<std::int64_t>::max() : w.endUs;
  std::vector<std::int64_t> latencies;
  std::int64_t firstGoodAt = std::numeric_limits<std::int64_t>::max();
  for (const DecisionRecord& r : records) {
    if (algo >= 0 && r.algorithm() != algo) continue;
    if (w.endUs >= 0 && r.atUs() >= w.endUs && !r.error()) firstGoodAt = std::min(firstGoodAt, r.atUs());
    if (r.atUs() < w.startUs || r.atUs() >= end) continue;
    ++m.decisions;
    ++(r.allowed() ? m.admitted : m.denied);
    if (r.error()) {
      ++m.errors;
      if (auto c = r.cause()) ++m.errorsByCause[static_cast<std::size_t>(*c)];
    }
    if (r.byPolicy()) ++(r.allowed() ? m.policyAdmitted : m.policyDenied);
    latencies.push_back(r.latencyUs());
    m.overBound += r.latencyUs() > answerBound.count();
  }
  if (firstGoodAt != std::numeric_limits<std::int64_t>::max()) m.recoveryUs = firstGoodAt - w.endUs;
  const LatencySummary s = summarizeLatency(latencies);
  m.maxLatencyUs = s.max;
  m.p99LatencyUs = s.p99;
  return m;
}
}  // namespace

std::vector<FaultWindowMetrics> computeFaultMetrics(std::span<const FaultWindow> windows,
                                                    std::span<const DecisionRecord> records, int algo,
                                                    Micros answerBound) {
  std::vector<FaultWindowMetrics> out;
  out.reserve(windows.size());
  for (const FaultWindow& w : windows) out.push_back(windowMetrics(w, records, algo, answerBound));
  return out;
}

}  // namespace rl
