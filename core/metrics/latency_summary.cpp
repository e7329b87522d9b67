#include "metrics/latency_summary.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

namespace {
template <class T>
std::int64_t percentileOf(const std::vector<T>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * n));  // 1-based
  return static_cast<std::int64_t>(sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1]);
}

template <class T>
LatencySummary summarize(std::vector<T>& samples) {
  std::sort(samples.begin(), samples.end());
  LatencySummary s;
  s.p50 = percentileOf(samples, 50);
  s.p90 = percentileOf(samples, 90);
  s.p99 = percentileOf(samples, 99);
  s.max = samples.empty() ? 0 : static_cast<std::int64_t>(samples.back());
  return s;
}
}  // namespace

std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p) { return percentileOf(sorted, p); }

LatencySummary summarizeLatency(std::vector<std::int64_t>& samples) { return summarize(samples); }
LatencySummary summarizeLatency(std::vector<std::uint32_t>& samples) { return summarize(samples); }

}  // namespace rl
