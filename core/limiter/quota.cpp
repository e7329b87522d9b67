#include "limiter/quota.hpp"

#include <cmath>
#include <cstdio>

namespace rl {

namespace {
std::string formatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string formatWindow(Micros w) {
  auto us = w.count();
  if (us % kSecond.count() == 0) return std::to_string(us / kSecond.count()) + "s";
  if (us % kMillisecond.count() == 0) return std::to_string(us / kMillisecond.count()) + "ms";
  return std::to_string(us) + "us";
}
}  // namespace

Quota Quota::withBurst(std::int64_t burst) const {
  Quota q = *this;
  q.refillPerSecond = ratePerSecond();
  q.limit = burst;
  return q;
}

Quota Quota::withRefill(double perSecond) const {
  Quota q = *this;
  q.refillPerSecond = perSecond;
  return q;
}

double Quota::ratePerSecond() const {
  if (refillPerSecond) return *refillPerSecond;
  return static_cast<double>(limit) * 1e6 / static_cast<double>(window.count());
}

Micros Quota::interval() const {
  if (refillPerSecond) return Micros{std::llround(1e6 / *refillPerSecond)};
  return Micros{(window.count() + limit / 2) / limit};
}

Result<void> Quota::validate(Algorithm algorithm) const {
  if (limit < 1 || limit > kMaxLimit)
    return invalidArgument("limit " + std::to_string(limit) +
                           " is out of range: allowed 1 to 1000000000000");
  if (algorithm == Algorithm::SlidingLog && limit > kMaxSlidingLogLimit)
    return invalidArgument("limit " + std::to_string(limit) +
                           " is too large for sliding_log, which keeps one timestamp per admitted unit of cost "
                           "(8 bytes each in memory, 17 in Redis): allowed 1 to 1000000 (sliding_counter or "
                           "fixed_window for larger limits)");
  if (window < kMinWindow || window > kMaxWindow)
    return invalidArgument("window " + std::to_string(window.count() / 1000) + " ms" +
                           " is out of range: allowed 1 ms to 31536000000 ms (one year)");
  if (window.count() % kMillisecond.count() != 0)
    return invalidArgument("window " + std::to_string(window.count()) +
                           " us is not a whole number of milliseconds");
  if (refillPerSecond) {
    double r = *refillPerSecond;
    if (!std::isfinite(r) || r <= 0 || r > kMaxRefillPerSecond)
      return invalidArgument("refill rate " + formatNumber(r) +
                             "/s is out of range: allowed a finite rate > 0 and <= 1000000/s");
    // The emission interval (1e6 / r microseconds) must fit the integer time of every algorithm.
    if (1e6 / r > static_cast<double>(kMaxWindow.count()))
      return invalidArgument("refill rate " + formatNumber(r) +
                             "/s is out of range: allowed at least one token per year (>= 3.2e-08/s)");
  }
  if (!isRateBased(algorithm)) return {};
  // Rate algorithms: one token per microsecond at most, and the time to fill
  // the whole bucket (limit x interval) must stay within a year.
  double us = refillPerSecond ? 1e6 / *refillPerSecond
                              : static_cast<double>(window.count()) / static_cast<double>(limit);
  if (us < 0.5)
    return invalidArgument("limit " + std::to_string(limit) + " per " + formatWindow(window) +
                           " refills faster than one token per microsecond: allowed up to "
                           "1000000/s (set a refill rate or a longer window)");
  if (us * static_cast<double>(limit) > static_cast<double>(kMaxWindow.count()))
    return invalidArgument("refill rate " + formatNumber(ratePerSecond()) + "/s with limit " +
                           std::to_string(limit) +
                           " takes more than one year to fill: allowed limit / rate <= 1 year");
  return {};
}

std::string Quota::toString() const {
  if (refillPerSecond)
    return formatNumber(*refillPerSecond) + " req/s (burst " + std::to_string(limit) + ")";
  if (window == kSecond) return std::to_string(limit) + " req/s (burst " + std::to_string(limit) + ")";
  return std::to_string(limit) + " req / " + formatWindow(window);
}

Result<void> validateCost(std::int64_t cost, const Quota& quota) {
  if (cost < 1 || cost > quota.limit)
    return invalidArgument("cost " + std::to_string(cost) + " is out of range: allowed 1 to " +
                           std::to_string(quota.limit) + " (the limit)");
  return {};
}

}  // namespace rl
