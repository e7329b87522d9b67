#include "metrics/window_truth.hpp"

#include <algorithm>

namespace rl {

std::int64_t maxInAnyWindow(std::span<const std::int64_t> t, std::int64_t windowUs) {
  std::int64_t best = 0;
  std::size_t left = 0;
  for (std::size_t right = 0; right < t.size(); ++right) {
    // Window ending at t[right]: entries at or before t[right] - W are outside.
    while (t[left] <= t[right] - windowUs) ++left;
    best = std::max(best, static_cast<std::int64_t>(right - left + 1));
  }
  return best;
}

std::int64_t maxCostInAnyWindow(std::span<const std::int64_t> t, std::span<const std::uint32_t> costs,
                                std::int64_t windowUs) {
  std::int64_t best = 0, sum = 0;
  std::size_t left = 0;
  for (std::size_t right = 0; right < t.size(); ++right) {
    sum += costs[right];
    while (t[left] <= t[right] - windowUs) sum -= costs[left++];
    best = std::max(best, sum);
  }
  return best;
}

}  // namespace rl
