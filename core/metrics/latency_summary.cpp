#include "metrics/latency_summary.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * n));  // 1-based
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

LatencySummary summarizeLatency(std::vector<std::int64_t>& samples) {
  std::sort(samples.begin(), samples.end());
  LatencySummary s;
  s.p50 = percentile(samples, 50);
  s.p90 = percentile(samples, 90);
  s.p99 = percentile(samples, 99);
  s.max = samples.empty() ? 0 : samples.back();
  return s;
}

}  // namespace rl
