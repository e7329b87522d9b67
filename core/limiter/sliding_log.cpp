#include "limiter/sliding_log.hpp"

#include <algorithm>

namespace rl {

Step decide(SlidingLogState& s, Micros now, std::int64_t cost, const Quota& q) {
  const std::int64_t w = q.window.count();
  const std::int64_t t = now.count();
  auto& e = s.entries;
  bool wrote = false;
  while (!e.empty() && e.front() <= t - w) {
    e.pop_front();
    wrote = true;
  }
  const auto n = static_cast<std::int64_t>(e.size());

  Step out;
  Decision& d = out.decision;
  d.limit = q.limit;
  if (n + cost <= q.limit) {
    // Keep the log sorted even when a skewed clock sends an older timestamp.
    auto at = std::upper_bound(e.begin(), e.end(), t);
    e.insert(at, static_cast<std::size_t>(cost), t);
    d.allowed = true;
    wrote = true;
  } else {
    // The (n + cost - limit)-th oldest entry must leave: at its time + W.
    const std::int64_t oldest = e[static_cast<std::size_t>(n + cost - q.limit - 1)];
    d.retryAfter = Micros{oldest + w - t};
  }
  const auto size = static_cast<std::int64_t>(e.size());
  d.remaining = q.limit - size;
  d.resetAfter = size > 0 ? Micros{e.back() + w - t} : Micros{0};
  d.level = static_cast<double>(size);
  out.wrote = wrote && size > 0;
  out.ttl = d.resetAfter;
  return out;
}

}  // namespace rl
