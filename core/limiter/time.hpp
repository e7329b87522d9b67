#pragma once
// Time in RateLab is integer microseconds, never double seconds.

#include <chrono>
#include <cstdint>

namespace rl {

/// A duration or a point in time, in integer microseconds (since the epoch for points).
using Micros = std::chrono::microseconds;

inline constexpr Micros kMillisecond{1'000};
inline constexpr Micros kSecond{1'000'000};
inline constexpr Micros kYear{365LL * 24 * 3600 * 1'000'000};

/// Floor division for possibly negative times (windows are aligned with it).
constexpr std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Microseconds rounded up to whole milliseconds (PEXPIRE takes ms; never rounds a positive to 0).
constexpr std::int64_t ceilMillis(Micros d) { return floorDiv(d.count() + 999, 1000); }

}  // namespace rl
