#pragma once
// The exact sliding-window truth: how many admitted requests fell in the
// worst window of length W, with the window (t - W, t] as in sliding_log.

#include <cstdint>
#include <span>

namespace rl {

/// Most entries of `sortedTimesUs` (ascending) inside any window (t - W, t].
/// Two pointers, O(n). `windowUs` >= 1.
std::int64_t maxInAnyWindow(std::span<const std::int64_t> sortedTimesUs, std::int64_t windowUs);

/// Largest sum of `costs[i]` over the entries inside any window (t - W, t];
/// `costs` runs parallel to `sortedTimesUs`. Two pointers, O(n).
std::int64_t maxCostInAnyWindow(std::span<const std::int64_t> sortedTimesUs, std::span<const std::uint32_t> costs,
                                std::int64_t windowUs);

}  // namespace rl
