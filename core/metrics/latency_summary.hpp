#pragma once
// Latency percentiles by nearest rank: p-th percentile = the smallest value
// with at least p% of the samples at or below it (an observed value, exact).

#include <cstdint>
#include <vector>

namespace rl {

/// p50 / p90 / p99 / max of a set of latencies, in microseconds.
struct LatencySummary {
  std::int64_t p50 = 0;  ///< median
  std::int64_t p90 = 0;  ///< 90th percentile
  std::int64_t p99 = 0;  ///< 99th percentile
  std::int64_t max = 0;  ///< worst
};

/// Nearest-rank percentile `p` (0 < p <= 100) of `sorted` (ascending); 0 when empty.
std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p);

/// Summary of `samples` (any order; sorted in place).
LatencySummary summarizeLatency(std::vector<std::int64_t>& samples);
/// Same for 4-byte samples (a storm's recorded latencies: half the memory).
LatencySummary summarizeLatency(std::vector<std::uint32_t>& samples);

}  // namespace rl
